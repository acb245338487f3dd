import { withTransaction } from './appDb';
import type { ReaderPageRecord } from './readerPageRecord';

/** Bound of the saved web pages on this device; least recently read go first (PWA-3). */
const DEFAULT_READER_CACHE_BYTES = 32 * 1024 * 1024;
/** The running total of `readerPages` in `cacheUsage`, beside the output pages' own. */
const USAGE_KEY = 'readerPages';

export type SavedReaderPage = Omit<ReaderPageRecord, 'byteLength' | 'savedAt' | 'lastUsed'>;

let lastStamp = 0;
/** A read time that never repeats, so least-recently-read order is strict even within 1 ms. */
function nextReadTime(): number {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return lastStamp;
}

function markdownBytes(page: SavedReaderPage): number {
  const encoder = new TextEncoder();
  return Object.values(page.views).reduce((sum, view) => sum + (view ? encoder.encode(view.markdown).byteLength : 0), 0);
}

/** A saved page, marked as just read; null when this device never saved it. */
export function readSavedReaderPage(url: string): Promise<ReaderPageRecord | null> {
  return withTransaction(['readerPages'], 'readwrite', async (tx) => {
    const store = tx.objectStore('readerPages');
    const page = await store.get(url);
    if (!page) return null;
    await store.put({ ...page, lastUsed: nextReadTime() });
    return page;
  });
}

/**
 * Saves a converted page, then evicts least recently read pages until the total fits the bound.
 * Put, eviction and the running total share one transaction, like the output page cache.
 */
export async function saveReaderPage(page: SavedReaderPage, maxBytes = DEFAULT_READER_CACHE_BYTES): Promise<void> {
  const byteLength = markdownBytes(page);
  if (byteLength > maxBytes) return;
  await withTransaction(['readerPages', 'cacheUsage'], 'readwrite', async (tx) => {
    const pages = tx.objectStore('readerPages');
    const usage = tx.objectStore('cacheUsage');
    const previous = await pages.get(page.url);
    let total = ((await usage.get(USAGE_KEY))?.bytes ?? 0) - (previous?.byteLength ?? 0) + byteLength;
    await pages.put({ ...page, byteLength, savedAt: Date.now(), lastUsed: nextReadTime() });
    let cursor = total > maxBytes ? await pages.index('byLastUsed').openCursor() : null;
    while (cursor && total > maxBytes) {
      if (cursor.primaryKey !== page.url) {
        total -= cursor.value.byteLength;
        await cursor.delete();
      }
      cursor = await cursor.continue();
    }
    await usage.put({ key: USAGE_KEY, bytes: Math.max(0, total) });
  });
}
