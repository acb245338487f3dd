import type { TextBody } from '../../../lib/protocol/rows';

/** How much of a long item text a row carries inline; the rest is read through `sessions.itemText` (TL-1). */
export const ITEM_TEXT_INLINE_BYTES = 64 * 1024;

/** A whole text as a body: nothing cut. */
export function wholeTextBody(text: string): TextBody {
  return { text, byteLength: Buffer.byteLength(text, 'utf8'), truncated: false };
}

/** The body a row carries: at most the inline bytes, cut on a character boundary, and says so (TL-1). */
export function inlineTextBody(body: TextBody, limit = ITEM_TEXT_INLINE_BYTES): TextBody {
  if (body.byteLength <= limit) return body;
  const bytes = Buffer.from(body.text, 'utf8');
  let end = limit;
  // Step back over UTF-8 continuation bytes so no character is split.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString('utf8'), byteLength: body.byteLength, truncated: true };
}
