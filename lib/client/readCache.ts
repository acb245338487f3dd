import { clearKeptRenditions } from './files/keptRenditions';
import { clearReaderImages } from './reader/readerImages';
import { withTransaction } from './appDb';
import { forgetSessionOutput } from './output/outputCache';
import { forgetTimelineSnapshot } from './snapshotCache';
import { forgetTimelinePages } from './timeline/timelinePageCache';

/** Drops what this device saved of a deleted session: its timeline (pages) and its output pages. */
export async function forgetSavedSession(sessionId: string): Promise<void> {
  await Promise.all([
    forgetTimelineSnapshot(sessionId),
    forgetTimelinePages(sessionId),
    forgetSessionOutput(sessionId),
  ]);
}

/** Drops everything read from the runtime (signing out: the next runtime may be another one). */
export async function clearReadCache(): Promise<void> {
  await Promise.all([clearReaderImages(), clearKeptRenditions()]);
  return withTransaction(
    ['outputPages', 'snapshots', 'cacheUsage', 'fileChunks', 'readerPages', 'timelinePages'],
    'readwrite',
    async (tx) => {
      await Promise.all(
        (['outputPages', 'snapshots', 'cacheUsage', 'fileChunks', 'readerPages', 'timelinePages'] as const).map(
          (name) => tx.objectStore(name).clear(),
        ),
      );
    },
  );
}
