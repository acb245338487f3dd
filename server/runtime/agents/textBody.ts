import type { TextBody } from '../../../lib/protocol/rows';
import { INLINE_TEXT_BYTES, utf8Prefix } from '../sessions/itemRows';

/**
 * A text as a row's TextBody (TL-1): at most `inlineBytes` inline, cut on a character boundary,
 * with the whole length and `truncated` saying so (never a silent cut, OUT-8). Live items pass
 * no limit: the overlay keeps whole texts and cuts them for the wire.
 */
export function textBody(text: string, inlineBytes = INLINE_TEXT_BYTES): TextBody {
  const prefix = utf8Prefix(text, inlineBytes);
  return { text: prefix, byteLength: Buffer.byteLength(text, 'utf8'), truncated: prefix !== text };
}

/** One slice of a whole text, for `Agent.readItemText`. */
export function textSlice(text: string, offset: number, length: number): { bytes: Buffer; availableBytes: number } {
  const bytes = Buffer.from(text, 'utf8');
  return {
    bytes: bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length)),
    availableBytes: bytes.length,
  };
}
