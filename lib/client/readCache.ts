import { withTransaction } from './appDb';
import { forgetSessionOutput } from './outputCache';
import { forgetTimelineSnapshot } from './snapshotCache';

/** Drops what this device saved of a deleted session: its timeline and its output pages. */
export async function forgetSavedSession(sessionId: string): Promise<void> {
  await Promise.all([forgetTimelineSnapshot(sessionId), forgetSessionOutput(sessionId)]);
}

/** Drops everything read from the runtime (signing out: the next runtime may be another one). */
export function clearReadCache(): Promise<void> {
  return withTransaction(['outputPages', 'snapshots', 'cacheUsage', 'fileChunks', 'readerPages'], 'readwrite', async (tx) => {
    await Promise.all(
      (['outputPages', 'snapshots', 'cacheUsage', 'fileChunks', 'readerPages'] as const).map((name) => tx.objectStore(name).clear()),
    );
  });
}
