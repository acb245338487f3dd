import type { TimelineRow } from '../../../lib/protocol/rows';
import { encodeCursor } from './pageCursor';
import type { RunRecord, SessionStore } from './sessionStore';

export interface RowsPage {
  rows: TimelineRow[];
  older: string | null;
  newer: string | null;
}

/**
 * A page of the app's own rows (TL-4): shell sessions, and agents whose history cannot be read.
 * A page holds whole runs (a message with its commands), newest first up to `limit` rows, so it
 * may pass `limit` when one run alone has more rows. Cursors name run positions, which never move.
 */
export function appRowsPage(
  sessions: SessionStore,
  sessionId: string,
  position: { beforeSeq?: number; fromSeq?: number },
  limit: number,
): RowsPage {
  const forward = position.fromSeq !== undefined;
  // One more run than could fit says whether there is anything beyond the page.
  const runs = forward
    ? sessions.runsFrom(sessionId, position.fromSeq!, limit + 1)
    : sessions.runsBefore(sessionId, position.beforeSeq ?? Number.MAX_SAFE_INTEGER, limit + 1);
  const taken: { run: RunRecord; rows: TimelineRow[] }[] = [];
  let count = 0;
  for (const run of runs) {
    if (count >= limit) break;
    const rows = sessions.rowsOfRun(run);
    taken.push({ run, rows });
    count += rows.length;
  }
  const more = runs.length > taken.length;
  if (!forward) taken.reverse();
  const first = taken[0]?.run.seq;
  const last = taken.at(-1)?.run.seq;
  const olderExists = forward
    ? first !== undefined && first > 1 && sessions.runsBefore(sessionId, first, 1).length > 0
    : more;
  const newerExists = forward
    ? more
    : position.beforeSeq !== undefined && sessions.runsFrom(sessionId, position.beforeSeq, 1).length > 0;
  return {
    rows: taken.flatMap((t) => t.rows),
    older: olderExists && first !== undefined ? encodeCursor({ k: 'runs', seq: first }) : null,
    newer: newerExists ? encodeCursor({ k: 'runs', seq: last === undefined ? position.beforeSeq! : last + 1 }) : null,
  };
}
