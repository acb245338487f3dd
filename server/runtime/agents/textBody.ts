import type { TextBody } from '../../../lib/protocol/rows';

/** The inline part of a long text an item row carries (TL-1); the rest is read through `sessions.itemText`. */
export const INLINE_TEXT_BYTES = 64 * 1024;

/**
 * A text as a row's TextBody: at most INLINE_TEXT_BYTES inline, cut on a character boundary,
 * with the whole length and `truncated` saying so (never a silent cut, OUT-8).
 */
export function textBody(text: string, inlineBytes = INLINE_TEXT_BYTES): TextBody {
  const byteLength = Buffer.byteLength(text, 'utf8');
  if (byteLength <= inlineBytes) return { text, byteLength, truncated: false };
  const bytes = Buffer.from(text, 'utf8');
  let end = inlineBytes;
  // Back up to the first byte of a UTF-8 sequence so the prefix never ends in half a character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString('utf8'), byteLength, truncated: true };
}

/** One slice of a whole text, for `Agent.readItemText`. */
export function textSlice(text: string, offset: number, length: number): { bytes: Buffer; availableBytes: number } {
  const bytes = Buffer.from(text, 'utf8');
  return { bytes: bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length)), availableBytes: bytes.length };
}
