import type { TimelineRow } from '../../protocol/rows';

/** One timeline page as this device saved it (TL-4): the rows `sessions.timeline` answered for one cursor. */
export interface TimelinePageRecord {
  /** `timelinePageKey(sessionId, parentItemId, before)`. */
  key: string;
  sessionId: string;
  rows: TimelineRow[];
  /** The cursor of the page just older, as the runtime gave it; null at the first row. */
  older: string | null;
  revision: number;
  /** Bytes of JSON held, counted in the cache's running total. */
  byteLength: number;
  savedAt: number;
  lastUsed: number;
}

/**
 * The key of a page: the newest page of a timeline, or the page the runtime answered for `before`.
 * Offline, the app follows the same `older` cursors through these keys that it followed online.
 */
export function timelinePageKey(sessionId: string, parentItemId: string | null, before: string | null): string {
  return `${sessionId}|${parentItemId ?? ''}|${before === null ? 'newest' : `before:${before}`}`;
}
