import type { Project, Session, TimelineRow } from '../protocol/rows';
import { withTransaction } from './appDb';
import { checkedRecord, SnapshotRecordSchema } from './storage/recordSchemas';

/** What this device saw last, with when it saved it (PWA-3). */
export interface Saved<T> {
  value: T;
  savedAt: number;
}

const SESSIONS_KEY = 'sessions';
const timelineKey = (sessionId: string) => `timeline:${sessionId}`;

export function readSessionsSnapshot(): Promise<Saved<{ projects: Project[]; sessions: Session[] }> | null> {
  return withTransaction(['snapshots'], 'readonly', async (tx) => {
    const saved = checkedRecord('snapshots', SnapshotRecordSchema, await tx.objectStore('snapshots').get(SESSIONS_KEY));
    return saved?.sessions
      ? { value: { projects: saved.projects ?? [], sessions: saved.sessions }, savedAt: saved.savedAt }
      : null;
  });
}

export function saveSessionsSnapshot(projects: Project[], sessions: Session[]): Promise<void> {
  return withTransaction(['snapshots'], 'readwrite', async (tx) => {
    await tx.objectStore('snapshots').put({ key: SESSIONS_KEY, projects, sessions, savedAt: Date.now() });
  });
}

export function readTimelineSnapshot(sessionId: string): Promise<Saved<TimelineRow[]> | null> {
  return withTransaction(['snapshots'], 'readonly', async (tx) => {
    const saved = checkedRecord(
      'snapshots',
      SnapshotRecordSchema,
      await tx.objectStore('snapshots').get(timelineKey(sessionId)),
    );
    return saved?.rows ? { value: saved.rows, savedAt: saved.savedAt } : null;
  });
}

export function saveTimelineSnapshot(sessionId: string, rows: TimelineRow[]): Promise<void> {
  return withTransaction(['snapshots'], 'readwrite', async (tx) => {
    await tx.objectStore('snapshots').put({ key: timelineKey(sessionId), rows, savedAt: Date.now() });
  });
}

export function forgetTimelineSnapshot(sessionId: string): Promise<void> {
  return withTransaction(['snapshots'], 'readwrite', (tx) =>
    tx.objectStore('snapshots').delete(timelineKey(sessionId)),
  );
}
