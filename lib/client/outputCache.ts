import { withTransaction } from './appDb';
import { DEFAULT_OUTPUT_CACHE_BYTES, outputPageKey } from './outputCachePolicy';

/** One page of one generation of one command's output. */
export interface OutputPageRef {
  /** `outputSource(sessionId, runId, commandId)` */
  source: string;
  generation: number;
  offset: number;
}

export interface OutputCacheOptions {
  /** Bound on the bytes of all cached pages; least recently used pages go first (PWA-3). */
  maxBytes?: number;
}

const USAGE_KEY = 'outputPages';

let lastStamp = 0;
/** A use time that never repeats within this page, so LRU order is strict even within 1 ms. */
function nextUseTime(): number {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return lastStamp;
}

/**
 * The first `length` bytes of a cached page, or null when this device has not saved them. A hit
 * marks the page as just used.
 */
export function readCachedOutputPage(ref: OutputPageRef, length: number): Promise<Uint8Array | null> {
  const key = outputPageKey(ref.source, ref.generation, ref.offset);
  return withTransaction(['outputPages'], 'readwrite', async (tx) => {
    const store = tx.objectStore('outputPages');
    const page = await store.get(key);
    if (!page || page.byteLength < length) return null;
    await store.put({ ...page, lastUsed: nextUseTime() });
    return new Uint8Array(page.bytes, 0, length);
  });
}

/**
 * Saves a page whose bytes are final (`isFinalOutputPage`), then evicts least recently used pages
 * until the cache fits its bound. Put, eviction and the running total share one transaction.
 */
export async function saveOutputPage(ref: OutputPageRef, bytes: Uint8Array, options: OutputCacheOptions = {}): Promise<void> {
  const maxBytes = options.maxBytes ?? DEFAULT_OUTPUT_CACHE_BYTES;
  if (bytes.byteLength === 0 || bytes.byteLength > maxBytes) return;
  const key = outputPageKey(ref.source, ref.generation, ref.offset);
  // NOTE: a copy, because `bytes` may be a view into a larger frame buffer.
  const own = bytes.slice().buffer;
  await withTransaction(['outputPages', 'cacheUsage'], 'readwrite', async (tx) => {
    const pages = tx.objectStore('outputPages');
    const usage = tx.objectStore('cacheUsage');
    const previous = await pages.get(key);
    let total = ((await usage.get(USAGE_KEY))?.bytes ?? 0) - (previous?.byteLength ?? 0) + own.byteLength;
    await pages.put({ key, source: ref.source, generation: ref.generation, offset: ref.offset, bytes: own, byteLength: own.byteLength, lastUsed: nextUseTime() });
    let cursor = total > maxBytes ? await pages.index('byLastUsed').openCursor() : null;
    while (cursor && total > maxBytes) {
      if (cursor.primaryKey !== key) {
        total -= cursor.value.byteLength;
        await cursor.delete();
      }
      cursor = await cursor.continue();
    }
    await usage.put({ key: USAGE_KEY, bytes: total });
  });
}

/** Bytes held by the output page cache. */
export async function outputCacheBytes(): Promise<number> {
  return withTransaction(['cacheUsage'], 'readonly', async (tx) => (await tx.objectStore('cacheUsage').get(USAGE_KEY))?.bytes ?? 0);
}

/** Removes every cached page of a session's commands (the session was deleted). */
export function forgetSessionOutput(sessionId: string): Promise<void> {
  const range = IDBKeyRange.bound(`${sessionId}:`, `${sessionId}:\uffff`);
  return withTransaction(['outputPages', 'cacheUsage'], 'readwrite', async (tx) => {
    const usage = tx.objectStore('cacheUsage');
    let total = (await usage.get(USAGE_KEY))?.bytes ?? 0;
    let cursor = await tx.objectStore('outputPages').index('bySource').openCursor(range);
    while (cursor) {
      total -= cursor.value.byteLength;
      await cursor.delete();
      cursor = await cursor.continue();
    }
    await usage.put({ key: USAGE_KEY, bytes: Math.max(0, total) });
  });
}
