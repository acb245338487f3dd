import type { TimelineRow } from '../../protocol/rows';

/**
 * What one timeline view holds (TL-3, TL-4): the rows read so far, oldest first, and per row id
 * the overlay revision its state is from, so a late notification never rolls a row back and a
 * removed row never comes back with an older state.
 */
export interface TimelineRows {
  rows: readonly TimelineRow[];
  /** Row id → revision of the state shown. */
  revisions: ReadonlyMap<string, number>;
  /** Row id → revision it was removed at. */
  removed: ReadonlyMap<string, number>;
  /** Ids of rows that came from older pages (kept when the newest page is read again). */
  olderIds: ReadonlySet<string>;
}

export const EMPTY_TIMELINE_ROWS: TimelineRows = {
  rows: [],
  revisions: new Map(),
  removed: new Map(),
  olderIds: new Set(),
};

/** Whether a state of `id` at `revision` is older than what the view holds or removed. */
function isStale(view: TimelineRows, id: string, revision: number | undefined): boolean {
  if (revision === undefined) return false;
  return (view.revisions.get(id) ?? -1) > revision || (view.removed.get(id) ?? -1) >= revision;
}

function stampAll(revisions: Map<string, number>, rows: readonly TimelineRow[], revision: number | undefined): void {
  if (revision === undefined) return;
  for (const row of rows) revisions.set(row.id, Math.max(revisions.get(row.id) ?? -1, revision));
}

/** A page's rows with each id once, where it first appears (a row has one place, TL-3). */
function onePerId(rows: readonly TimelineRow[]): readonly TimelineRow[] {
  const seen = new Set<string>();
  const unique = rows.filter((row) => !seen.has(row.id) && seen.add(row.id));
  return unique.length === rows.length ? rows : unique;
}

/**
 * The newest page replaces what the view knew of the newest rows. Rows shown before that the
 * page does not have stay before it (older pages read earlier, rows of a gap while the
 * connection was lost), except live ones: those are either in the page or were removed since.
 */
export function withNewestPage(
  view: TimelineRows,
  pageRows: readonly TimelineRow[],
  revision: number | undefined,
): TimelineRows {
  const rows = onePerId(pageRows);
  const ids = new Set(rows.map((row) => row.id));
  const kept = view.rows.filter((row) => !ids.has(row.id) && !('source' in row && row.source === 'live'));
  const revisions = new Map(view.revisions);
  stampAll(revisions, rows, revision);
  return { ...view, rows: [...kept, ...rows], revisions, olderIds: new Set(kept.map((row) => row.id)) };
}

/** Whether a newest page joins the rows shown (it has one of them), so no rows are missing in between. */
export function joinsShownRows(view: TimelineRows, rows: readonly TimelineRow[]): boolean {
  if (view.rows.length === 0) return true;
  const shown = new Set(view.rows.map((row) => row.id));
  return rows.some((row) => shown.has(row.id));
}

/** An older page goes before everything shown; rows already shown keep their newer state. */
export function withOlderPage(
  view: TimelineRows,
  rows: readonly TimelineRow[],
  revision: number | undefined,
): TimelineRows {
  const shown = new Set(view.rows.map((row) => row.id));
  const added = onePerId(rows).filter((row) => !shown.has(row.id) && !isStale(view, row.id, revision));
  const revisions = new Map(view.revisions);
  stampAll(revisions, added, revision);
  const olderIds = new Set(view.olderIds);
  for (const row of added) olderIds.add(row.id);
  return { ...view, rows: [...added, ...view.rows], revisions, olderIds };
}

/**
 * Where a new row goes: at the end, but before the messages queued behind its run at the end,
 * so a running turn's rows (its end, after a Stop) stay above the message waiting for it (ACC-6).
 * A steering message is no such message: it is inside the turn it steered (TL-3), so the turn's
 * later rows come after it, as its saved pages have them.
 */
function insertionIndex(rows: readonly TimelineRow[], row: TimelineRow): number {
  let at = rows.length;
  if (row.kind === 'message') return at;
  while (at > 0) {
    const before = rows[at - 1]!;
    if (
      before.kind !== 'message' ||
      before.state !== 'queued' ||
      before.steer !== undefined ||
      before.runId === row.runId
    )
      break;
    at -= 1;
  }
  return at;
}

/** One `timeline.row`: replaces the row of the same id in place, or adds a new one. */
export function withRow(view: TimelineRows, row: TimelineRow, revision: number | undefined): TimelineRows {
  if (isStale(view, row.id, revision)) return view;
  const index = view.rows.findIndex((r) => r.id === row.id);
  const rows = view.rows.slice();
  if (index === -1) rows.splice(insertionIndex(rows, row), 0, row);
  else rows[index] = row;
  const revisions = new Map(view.revisions);
  stampAll(revisions, [row], revision);
  return { ...view, rows, revisions };
}

/** One `timeline.removed`: the live rows the agent's saved history did not keep go (TL-3). */
export function withRemoved(view: TimelineRows, ids: readonly string[], revision: number): TimelineRows {
  // A row whose shown state is newer than the removal was written again after it: it stays.
  const gone = new Set(ids.filter((id) => (view.revisions.get(id) ?? -1) <= revision));
  const removed = new Map(view.removed);
  for (const id of gone) removed.set(id, Math.max(removed.get(id) ?? -1, revision));
  return { ...view, rows: view.rows.filter((row) => !gone.has(row.id)), removed };
}
