import { describe, expect, it } from 'vitest';
import {
  EMPTY_TIMELINE_ROWS,
  withNewestPage,
  withOlderPage,
  withRow,
  type TimelineRows,
} from '../../../../lib/client/timeline/timelineMerge';
import type { MessageState, TimelineRow } from '../../../../lib/protocol/rows';

const SESSION = 's1';
const message = (run: string, state: MessageState): TimelineRow => ({
  kind: 'message',
  id: `m:${run}`,
  sessionId: SESSION,
  operationId: `op-${run}`,
  runId: run,
  text: `message of ${run}`,
  state,
  createdAt: 1,
});
const turnEnd = (run: string): TimelineRow => ({
  kind: 'turnEnd',
  id: `i:turn:${run}`,
  sessionId: SESSION,
  runId: run,
  itemId: `turn:${run}`,
  parentItemId: null,
  createdAt: 2,
  source: 'live',
  status: 'interrupted',
  durationMs: 10,
  usage: null,
  costUsd: null,
  error: null,
});

const ids = (view: TimelineRows) => view.rows.map((row) => row.id);
const viewOf = (rows: TimelineRow[]) => rows.reduce((view, row) => withRow(view, row, undefined), EMPTY_TIMELINE_ROWS);

describe('a timeline.row joins the rows shown', () => {
  it('ACC-6 a new row of a running turn goes above the messages queued behind it, not after them', () => {
    const view = viewOf([message('r1', 'running'), message('r2', 'queued'), message('r3', 'queued')]);
    expect(ids(withRow(view, turnEnd('r1'), undefined))).toEqual(['m:r1', 'i:turn:r1', 'm:r2', 'm:r3']);
  });

  it("TL-3 ACC-6 a steering message is inside the turn it steered: the turn's later rows go after it, above the messages queued behind", () => {
    const steer = { ...message('r2', 'queued'), steer: 'accepted' } as TimelineRow;
    const view = viewOf([message('r1', 'running'), steer, message('r3', 'queued')]);
    expect(ids(withRow(view, turnEnd('r1'), undefined))).toEqual(['m:r1', 'm:r2', 'i:turn:r1', 'm:r3']);
  });

  it('ACC-6 a row of a run that already ran, or of the queued run itself, goes at the end', () => {
    const ran = viewOf([message('r1', 'done'), message('r2', 'running')]);
    expect(ids(withRow(ran, turnEnd('r2'), undefined))).toEqual(['m:r1', 'm:r2', 'i:turn:r2']);
    const own = viewOf([message('r1', 'queued')]);
    expect(ids(withRow(own, turnEnd('r1'), undefined))).toEqual(['m:r1', 'i:turn:r1']);
    // A new message goes last, behind the ones already queued.
    expect(
      ids(withRow(viewOf([message('r1', 'running'), message('r2', 'queued')]), message('r3', 'queued'), undefined)),
    ).toEqual(['m:r1', 'm:r2', 'm:r3']);
  });
});

describe('TL-3 pages join the rows shown with each id once', () => {
  it('TL-3 a row repeated in a page, or in an older page and the rows shown, is shown once, in its first place', () => {
    const newest = withNewestPage(
      EMPTY_TIMELINE_ROWS,
      [message('r2', 'done'), turnEnd('r2'), message('r3', 'done'), turnEnd('r2')],
      1,
    );
    expect(ids(newest)).toEqual(['m:r2', 'i:turn:r2', 'm:r3']);
    const older = withOlderPage(
      newest,
      [message('r1', 'done'), turnEnd('r1'), turnEnd('r1'), message('r2', 'done')],
      1,
    );
    expect(ids(older)).toEqual(['m:r1', 'i:turn:r1', 'm:r2', 'i:turn:r2', 'm:r3']);
  });
});
