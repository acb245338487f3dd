import type { TextBody } from '../../../lib/protocol/rows';
import { INLINE_TEXT_BYTES, utf8Prefix } from '../sessions/itemRows';

/** A whole text as a body: nothing cut. */
export function wholeTextBody(text: string): TextBody {
  return { text, byteLength: Buffer.byteLength(text, 'utf8'), truncated: false };
}

/** The body a row carries: at most the inline bytes, cut on a character boundary, and says so (TL-1). */
export function inlineTextBody(body: TextBody): TextBody {
  const text = utf8Prefix(body.text, INLINE_TEXT_BYTES);
  return text === body.text ? body : { text, byteLength: body.byteLength, truncated: true };
}
