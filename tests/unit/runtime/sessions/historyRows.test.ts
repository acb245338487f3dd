import { describe, expect, it } from 'vitest';
import type { CommandRow, TimelineRow } from '../../../../lib/protocol/rows';
import type { HistoryEntry } from '../../../../server/runtime/agents/agent';
import { mapHistoryEntries, type HistoryContext } from '../../../../server/runtime/sessions/historyRows';
import type { RunRecord } from '../../../../server/runtime/sessions/sessionStore';

const run: RunRecord = {
  id: 'r1',
  sessionId: 's',
  operationId: 'op-1',
  text: 'Decline twice',
  state: 'done',
  seq: 1,
  createdAt: 100,
};
const declined = (commandId: string, startedAt: number): CommandRow => ({
  kind: 'command',
  id: `c:r1:${commandId}`,
  sessionId: 's',
  runId: 'r1',
  commandId,
  command: `echo ${commandId}`,
  status: 'cancelled',
  exitCode: null,
  byteLength: 0,
  generation: 1,
  complete: true,
  sourceIncomplete: false,
  error: 'The command was declined.',
  startedAt,
  endedAt: startedAt + 1,
});
const text = (itemId: string, createdAt: number): HistoryEntry => ({
  kind: 'item',
  item: { kind: 'agentText', itemId, parentItemId: null, createdAt, text: itemId, streaming: false },
});
const end: HistoryEntry = {
  kind: 'item',
  item: {
    kind: 'turnEnd',
    itemId: 'turn:t1',
    parentItemId: null,
    createdAt: 100,
    status: 'completed',
    durationMs: 900,
    usage: null,
    costUsd: null,
    error: null,
  },
};
const user: HistoryEntry = { kind: 'user', itemId: 'u1', text: 'Decline twice', createdAt: 101, clientId: 'op-1' };
// Codex keeps no item for a declined command: the history is the message, two texts and the end,
// each naming the message that started its turn.
const TURN: HistoryEntry[] = [user, text('before', 110), text('after', 140), end].map((entry) => ({
  ...entry,
  turnClientId: 'op-1',
}));
const COMMANDS = [declined('d1', 120), declined('d2', 130)];

const context: HistoryContext = {
  sessionId: 's',
  parentItemId: null,
  runOfUser: (clientId) => (clientId === 'op-1' ? run : undefined),
  commandRow: () => undefined,
  commandsOfRun: (runId) => (runId === 'r1' ? COMMANDS : []),
};
const ids = (rows: TimelineRow[]) => rows.map((row) => row.id);

describe("TL-3 commands the agent's history does not keep", () => {
  it("TL-3 a declined command sits in its turn by time, before the turn's end, as it did live", () => {
    expect(ids(mapHistoryEntries(TURN, context).rows)).toEqual([
      'm:r1',
      'i:before',
      'c:r1:d1',
      'c:r1:d2',
      'i:after',
      'i:turn:t1',
    ]);
  });

  it('TL-4 split over pages at every boundary, each command is on exactly one page and the order is the same', () => {
    const whole = ids(mapHistoryEntries(TURN, context).rows);
    for (let cut = 1; cut < TURN.length; cut += 1) {
      const older = ids(mapHistoryEntries(TURN.slice(0, cut), context).rows);
      // The page says when the entry just before it began (HistoryPage.startsAfter).
      const before = TURN[cut - 1]!;
      const startsAfter = before.kind === 'item' ? before.item.createdAt : before.createdAt;
      const newer = ids(mapHistoryEntries(TURN.slice(cut), { ...context, startsAfter }).rows);
      expect([...older, ...newer], `cut at ${cut}`).toEqual(whole);
    }
  });

  it("TL-3 a steer's message stays in the turn it steered; the turn's rows stay that turn's run", () => {
    const steer: RunRecord = { ...run, id: 'r2', operationId: 'op-2', text: 'Steer me', seq: 2, createdAt: 125 };
    const steerEntry: HistoryEntry = {
      kind: 'user',
      itemId: 'u2',
      text: 'Steer me',
      createdAt: 125,
      clientId: 'op-2',
      turnClientId: 'op-1',
    };
    const withSteer = [...TURN.slice(0, 2), steerEntry, ...TURN.slice(2)];
    const mapped = mapHistoryEntries(withSteer, {
      ...context,
      runOfUser: (id) => (id === 'op-1' ? run : id === 'op-2' ? steer : undefined),
    });
    expect(ids(mapped.rows)).toEqual(['m:r1', 'i:before', 'c:r1:d1', 'm:r2', 'c:r1:d2', 'i:after', 'i:turn:t1']);
    expect(mapped.rows.find((row) => row.id === 'i:after')?.runId).toBe('r1');
    expect([...mapped.matchedRuns].sort()).toEqual(['r1', 'r2']);
  });
});
