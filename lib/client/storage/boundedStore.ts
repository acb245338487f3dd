import type { IDBPCursorWithValue, IDBPObjectStore, StoreKey, StoreValue } from 'idb';
import { withTransaction, type AppDbSchema } from '../appDb';
import { boundedRecordSchema, checkedRecord } from './recordSchemas';

/**
 * The one bounded, least-recently-used IndexedDB store behind the read caches (PWA-3): output
 * pages, file chunks, reader pages and timeline pages. Each record carries `lastUsed` (indexed as `byLastUsed`);
 * the store's running total of bytes lives in `cacheUsage` under the store's own name, and a
 * put, its evictions and the new total share one transaction.
 */
export type BoundedStoreName = 'outputPages' | 'fileChunks' | 'readerPages' | 'timelinePages';
export type BoundedRecord<N extends BoundedStoreName> = StoreValue<AppDbSchema, N>;

type Store<N extends BoundedStoreName> = IDBPObjectStore<AppDbSchema, [N, 'cacheUsage'], N, 'readwrite'>;
type Cursor<N extends BoundedStoreName> = IDBPCursorWithValue<AppDbSchema, [N, 'cacheUsage'], N, unknown, 'readwrite'>;

/** The bytes a record counts against its store's bound. */
const SIZE_OF: { [N in BoundedStoreName]: (record: BoundedRecord<N>) => number } = {
  outputPages: (record) => record.byteLength,
  fileChunks: (record) => record.bytes.byteLength,
  readerPages: (record) => record.byteLength,
  timelinePages: (record) => record.byteLength,
};

function sizeOf<N extends BoundedStoreName>(name: N, record: BoundedRecord<N>): number {
  return (SIZE_OF[name] as (record: BoundedRecord<N>) => number)(record);
}

let lastStamp = 0;
/** A use time that never repeats within this page, so LRU order is strict even within 1 ms. */
function nextUseTime(): number {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return lastStamp;
}

/**
 * One record, marked as just used; null when this device does not hold it. A record that fails its
 * schema (PWA-8) is deleted, its bytes taken off the total, and read as not held.
 */
export function readAndMarkUsed<N extends BoundedStoreName>(
  name: N,
  key: StoreKey<AppDbSchema, N>,
): Promise<BoundedRecord<N> | null> {
  return withTransaction([name, 'cacheUsage'], 'readwrite', async (tx) => {
    const store = tx.objectStore(name);
    const stored: unknown = await store.get(key);
    if (stored === undefined) return null;
    const record = checkedBoundedRecord(name, stored);
    if (!record) {
      const usage = tx.objectStore('cacheUsage');
      const total = (await usage.get(name))?.bytes ?? 0;
      await store.delete(key);
      await usage.put({ key: name, bytes: Math.max(0, total - sizeOfDamaged(name, stored)) });
      return null;
    }
    await store.put({ ...record, lastUsed: nextUseTime() });
    return record;
  });
}

/** `value` as a record of `name` when it matches the store's schema (PWA-8), else null. */
export function checkedBoundedRecord<N extends BoundedStoreName>(name: N, value: unknown): BoundedRecord<N> | null {
  return checkedRecord(name, boundedRecordSchema(name), value) as BoundedRecord<N> | null;
}

/** The bytes a record that failed its schema counted, when they can still be told. */
function sizeOfDamaged(name: BoundedStoreName, record: unknown): number {
  try {
    const size = sizeOf(name, record as BoundedRecord<typeof name>);
    return Number.isSafeInteger(size) && size > 0 ? size : 0;
  } catch {
    return 0;
  }
}

/**
 * Saves a record as just used, then evicts the least recently used others until the store fits
 * `maxBytes`. A record larger than the whole bound is not kept (it would push everything out).
 */
export async function putWithinBound<N extends BoundedStoreName>(
  name: N,
  record: Omit<BoundedRecord<N>, 'lastUsed'>,
  maxBytes: number,
): Promise<void> {
  const stamped = { ...record, lastUsed: nextUseTime() } as BoundedRecord<N>;
  const size = sizeOf(name, stamped);
  if (size > maxBytes) return;
  await withTransaction([name, 'cacheUsage'], 'readwrite', async (tx) => {
    const store: Store<N> = tx.objectStore(name);
    const usage = tx.objectStore('cacheUsage');
    const key = keyOf(store, stamped);
    const previous = await store.get(key);
    let total = ((await usage.get(name))?.bytes ?? 0) - (previous ? sizeOf(name, previous) : 0) + size;
    await store.put(stamped);
    let cursor: Cursor<N> | null = total > maxBytes ? await store.index('byLastUsed').openCursor() : null;
    while (cursor && total > maxBytes) {
      if (indexedDB.cmp(cursor.primaryKey, key) !== 0) {
        total -= sizeOf(name, cursor.value);
        await cursor.delete();
      }
      cursor = await cursor.continue();
    }
    await usage.put({ key: name, bytes: Math.max(0, total) });
  });
}

/** The primary key a record will have in `store` (its key path read from the record). */
function keyOf<N extends BoundedStoreName>(store: Store<N>, record: BoundedRecord<N>): StoreKey<AppDbSchema, N> {
  const path = store.keyPath;
  const field = (name: string) => (record as unknown as Record<string, IDBValidKey>)[name]!;
  return (Array.isArray(path) ? path.map(field) : field(path as string)) as StoreKey<AppDbSchema, N>;
}

/** Deletes the records `walk` opens a cursor over that `drop` selects, keeping the total right. */
export function deleteRecords<N extends BoundedStoreName>(
  name: N,
  walk: (store: Store<N>) => Promise<Cursor<N> | null>,
  drop: (record: BoundedRecord<N>) => boolean = () => true,
): Promise<void> {
  return withTransaction([name, 'cacheUsage'], 'readwrite', async (tx) => {
    const usage = tx.objectStore('cacheUsage');
    let total = (await usage.get(name))?.bytes ?? 0;
    let cursor = await walk(tx.objectStore(name));
    while (cursor) {
      if (drop(cursor.value)) {
        total -= sizeOf(name, cursor.value);
        await cursor.delete();
      }
      cursor = await cursor.continue();
    }
    await usage.put({ key: name, bytes: Math.max(0, total) });
  });
}

/** Bytes a bounded store holds. */
export function storedBytes(name: BoundedStoreName): Promise<number> {
  return withTransaction(
    ['cacheUsage'],
    'readonly',
    async (tx) => (await tx.objectStore('cacheUsage').get(name))?.bytes ?? 0,
  );
}
