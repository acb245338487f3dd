import { withTransaction } from './appDb';
import { checkedBoundedRecord, putWithinBound, readAndMarkUsed } from './storage/boundedStore';
import type { ReaderPageRecord } from './readerPageRecord';

/** Bound of the saved web pages on this device; least recently read go first (PWA-3). */
const DEFAULT_READER_CACHE_BYTES = 32 * 1024 * 1024;

export type SavedReaderPage = Omit<ReaderPageRecord, 'byteLength' | 'savedAt' | 'lastUsed'>;

function markdownBytes(page: SavedReaderPage): number {
  const encoder = new TextEncoder();
  return Object.values(page.views).reduce(
    (sum, view) => sum + (view ? encoder.encode(view.markdown).byteLength : 0),
    0,
  );
}

/** A saved page, marked as just read; null when this device never saved it. */
export function readSavedReaderPage(url: string): Promise<ReaderPageRecord | null> {
  return readAndMarkUsed('readerPages', url);
}

/**
 * Saves a converted page, then evicts least recently read pages until the total fits the bound.
 * Put, eviction and the running total share one transaction, like the output page cache.
 */
export async function saveReaderPage(page: SavedReaderPage, maxBytes = DEFAULT_READER_CACHE_BYTES): Promise<void> {
  await putWithinBound('readerPages', { ...page, byteLength: markdownBytes(page), savedAt: Date.now() }, maxBytes);
}

/** What the list of saved pages shows of one (MD-1, PWA-3). */
export interface SavedReaderPageSummary {
  url: string;
  finalUrl: string;
  title: string;
  savedAt: number;
  lastUsed: number;
}

/** The pages this device saved, most lately read first, at most `limit` of them; reads nothing from the network. */
export function listSavedReaderPages(limit = 200): Promise<SavedReaderPageSummary[]> {
  return withTransaction(['readerPages'], 'readonly', async (tx) => {
    const pages: SavedReaderPageSummary[] = [];
    let cursor = await tx.objectStore('readerPages').index('byLastUsed').openCursor(null, 'prev');
    while (cursor && pages.length < limit) {
      // PWA-8: a damaged page is left out of the list (reading it deletes it), not a broken list.
      const page = checkedBoundedRecord('readerPages', cursor.value);
      if (page) {
        const { url, finalUrl, views, preferred, savedAt, lastUsed } = page;
        const title = (views[preferred] ?? Object.values(views).find(Boolean))?.title ?? '';
        pages.push({ url, finalUrl, title, savedAt, lastUsed });
      }
      cursor = await cursor.continue();
    }
    return pages;
  });
}
