import { withTransaction } from './appDb';
import type { ReaderPageRecord } from './readerPageRecord';

/** Bound of the saved web pages on this device; least recently read go first (PWA-3). */
export const DEFAULT_READER_CACHE_BYTES = 32 * 1024 * 1024;
/** The running total of `readerPages` in `cacheUsage`, beside the output pages' own. */
const USAGE_KEY = 'readerPages';

export type SavedReaderPage = Omit<ReaderPageRecord, 'byteLength' | 'savedAt' | 'lastUsed'>;

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
    await store.put({ ...page, lastUsed: Date.now() });
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
    const now = Date.now();
    await pages.put({ ...page, byteLength, savedAt: now, lastUsed: now });
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
