import { deleteRecords, putWithinBound, readAndMarkUsed, storedBytes } from '../storage/boundedStore';
import { requestPersistenceAfterSave } from '../storage/persistence';
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

/**
 * The first `length` bytes of a cached page, or null when this device has not saved them. A hit
 * marks the page as just used.
 */
export async function readCachedOutputPage(ref: OutputPageRef, length: number): Promise<Uint8Array | null> {
  const page = await readAndMarkUsed('outputPages', outputPageKey(ref.source, ref.generation, ref.offset));
  return page && page.byteLength >= length ? new Uint8Array(page.bytes, 0, length) : null;
}

/**
 * Saves a page whose bytes are final (`isFinalOutputPage`), then evicts least recently used pages
 * until the cache fits its bound. Put, eviction and the running total share one transaction.
 */
export async function saveOutputPage(
  ref: OutputPageRef,
  bytes: Uint8Array,
  options: OutputCacheOptions = {},
): Promise<void> {
  if (bytes.byteLength === 0) return;
  const key = outputPageKey(ref.source, ref.generation, ref.offset);
  // NOTE: a copy, because `bytes` may be a view into a larger frame buffer.
  const own = bytes.slice().buffer;
  await putWithinBound(
    'outputPages',
    { key, source: ref.source, generation: ref.generation, offset: ref.offset, bytes: own, byteLength: own.byteLength },
    options.maxBytes ?? DEFAULT_OUTPUT_CACHE_BYTES,
  );
  void requestPersistenceAfterSave();
}

/** Bytes held by the output page cache. */
export function outputCacheBytes(): Promise<number> {
  return storedBytes('outputPages');
}

/** Removes every cached page of a session's commands (the session was deleted). */
export function forgetSessionOutput(sessionId: string): Promise<void> {
  const range = IDBKeyRange.bound(`${sessionId}:`, `${sessionId}:\uffff`);
  return deleteRecords('outputPages', (store) => store.index('bySource').openCursor(range));
}
