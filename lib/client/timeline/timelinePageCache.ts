import { deleteRecords, putWithinBound, readAndMarkUsed } from '../storage/boundedStore';
import { timelinePageKey, type TimelinePageRecord } from './timelinePageRecord';

/** Default bound of the timeline page cache on this device (TL-4). */
export const DEFAULT_TIMELINE_CACHE_BYTES = 64 * 1024 * 1024;

/** A page as the store keeps it. */
export type CachedTimelinePage = Pick<TimelinePageRecord, 'rows' | 'older' | 'revision' | 'savedAt'>;

/** Where pages once read are kept for offline reading (TL-4): IndexedDB in the app, memory in unit tests. */
export interface TimelinePageCache {
  read(sessionId: string, parentItemId: string | null, before: string | null): Promise<CachedTimelinePage | null>;
  save(
    sessionId: string,
    parentItemId: string | null,
    before: string | null,
    page: Omit<CachedTimelinePage, 'savedAt'>,
  ): Promise<void>;
}

const encoder = new TextEncoder();

/** The app's page cache: one bounded, least-recently-used IndexedDB store (PWA-3, TL-4). */
export const indexedDbTimelinePages: TimelinePageCache = {
  async read(sessionId, parentItemId, before) {
    const record = await readAndMarkUsed('timelinePages', timelinePageKey(sessionId, parentItemId, before));
    return record && { rows: record.rows, older: record.older, revision: record.revision, savedAt: record.savedAt };
  },
  async save(sessionId, parentItemId, before, page) {
    const key = timelinePageKey(sessionId, parentItemId, before);
    const byteLength = encoder.encode(JSON.stringify(page.rows)).byteLength;
    await putWithinBound(
      'timelinePages',
      { key, sessionId, ...page, byteLength, savedAt: Date.now() },
      DEFAULT_TIMELINE_CACHE_BYTES,
    );
  },
};

/** Removes every saved page of a session (the session was deleted). */
export function forgetTimelinePages(sessionId: string): Promise<void> {
  return deleteRecords('timelinePages', (store) => store.index('bySession').openCursor(IDBKeyRange.only(sessionId)));
}
