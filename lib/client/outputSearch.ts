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
 * The output offset of the next match at or after `from`, reading pages forward. Consecutive
 * reads overlap by query length − 1 bytes so a match across a page boundary is found.
 * `signal` stops a long search.
 */
export async function findNext(read: ReadRange, totalBytes: number, query: Uint8Array, from: number, pageBytes: number, signal?: AbortSignal): Promise<number | null> {
  if (query.length === 0) return null;
  for (let offset = Math.max(0, from); offset < totalBytes; offset += pageBytes - (query.length - 1)) {
    signal?.throwIfAborted();
    const bytes = await read(offset, Math.min(pageBytes, totalBytes - offset));
    const at = indexOfQuery(bytes, query);
    if (at !== -1) return offset + at;
    if (offset + bytes.length >= totalBytes) break;
  }
  return null;
}

/** The output offset of the last match that starts before `before`, reading pages backward. */
export async function findPrevious(read: ReadRange, query: Uint8Array, before: number, pageBytes: number, signal?: AbortSignal): Promise<number | null> {
  if (query.length === 0) return null;
  let end = before + query.length - 1;
  while (end > 0) {
    signal?.throwIfAborted();
    const start = Math.max(0, end - pageBytes);
    const bytes = await read(start, end - start);
    const at = lastIndexOfQuery(bytes, query, before - start);
    if (at !== -1) return start + at;
    if (start === 0) break;
    end = start + query.length - 1;
    before = start;
  }
  return null;
}
