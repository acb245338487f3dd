/**
 * Find in a command's output (PWA-2), over bytes, page by page, so a match is found anywhere in
 * a 10 GiB output without holding more than two pages. The query is matched as UTF-8;
 * ASCII letters match either case.
 */

const lower = (b: number) => (b >= 65 && b <= 90 ? b + 32 : b);

export function encodeQuery(query: string): Uint8Array {
  return new TextEncoder().encode(query);
}

/** Index of the first match at or after `from` in `bytes`, or -1. */
export function indexOfQuery(bytes: Uint8Array, query: Uint8Array, from = 0): number {
  if (query.length === 0) return -1;
  const first = lower(query[0]!);
  outer: for (let i = Math.max(0, from); i <= bytes.length - query.length; i++) {
    if (lower(bytes[i]!) !== first) continue;
    for (let j = 1; j < query.length; j++) if (lower(bytes[i + j]!) !== lower(query[j]!)) continue outer;
    return i;
  }
  return -1;
}

/** Index of the last match that starts before `before`, or -1. */
export function lastIndexOfQuery(bytes: Uint8Array, query: Uint8Array, before = bytes.length): number {
  if (query.length === 0) return -1;
  for (let i = Math.min(before - 1, bytes.length - query.length); i >= 0; i--) {
    if (indexOfQuery(bytes.subarray(i, i + query.length), query) === 0) return i;
  }
  return -1;
}

export type ReadRange = (offset: number, length: number) => Promise<Uint8Array>;

/**
 * Pages are read whole and at multiples of `pageBytes` (the viewer's pages), so every read is
 * one the offline cache can answer (PWA-3); a match across a boundary is found by carrying the
 * last query.length − 1 bytes of one page over to the next.
 */
const pageStartOf = (offset: number, pageBytes: number) => Math.floor(offset / pageBytes) * pageBytes;

function joined(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The output offset of the next match at or after `from`, reading pages forward; `signal` stops a long search. */
export async function findNext(read: ReadRange, totalBytes: number, query: Uint8Array, from: number, pageBytes: number, signal?: AbortSignal): Promise<number | null> {
  if (query.length === 0) return null;
  let carry: Uint8Array = new Uint8Array(0);
  for (let pageStart = pageStartOf(Math.max(0, from), pageBytes); pageStart < totalBytes; pageStart += pageBytes) {
    signal?.throwIfAborted();
    const wanted = Math.min(pageBytes, totalBytes - pageStart);
    const bytes = await read(pageStart, wanted);
    const window = joined(carry, bytes);
    const windowStart = pageStart - carry.length;
    const at = indexOfQuery(window, query, Math.max(0, from - windowStart));
    if (at !== -1) return windowStart + at;
    if (bytes.length < wanted) break;
    carry = window.slice(Math.max(0, window.length - (query.length - 1)));
  }
  return null;
}

/** The output offset of the last match that starts before `before`, reading pages backward. */
export async function findPrevious(read: ReadRange, totalBytes: number, query: Uint8Array, before: number, pageBytes: number, signal?: AbortSignal): Promise<number | null> {
  if (query.length === 0 || before <= 0) return null;
  // The last byte a match starting before `before` can touch.
  const lastByte = Math.min(totalBytes, before + query.length - 1) - 1;
  let carry: Uint8Array = new Uint8Array(0);
  for (let pageStart = pageStartOf(lastByte, pageBytes); pageStart >= 0; pageStart -= pageBytes) {
    signal?.throwIfAborted();
    const bytes = await read(pageStart, Math.min(pageBytes, totalBytes - pageStart));
    const window = joined(bytes, carry);
    const at = lastIndexOfQuery(window, query, before - pageStart);
    if (at !== -1) return pageStart + at;
    carry = bytes.slice(0, Math.min(query.length - 1, bytes.length));
  }
  return null;
}
