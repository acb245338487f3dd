import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../../../../server/runtime/agents/agent';
import { CodexHistory, type CodexCall } from '../../../../../server/runtime/agents/codex/codexHistory';
import type { TurnRecord } from '../../../../../server/runtime/agents/codex/codexTurnRecords';

interface Entry {
  turnId: string;
  item: Record<string, unknown>;
  startedAtMs: number;
}

/**
 * thread/items/list and thread/turns/list as Codex answers them: string cursors, a reversed
 * cursor that starts at its anchor again (includeAnchor), pages in the requested direction.
 */
function fakeCodex(allEntries: Entry[], turns: Record<string, unknown>[]): { call: CodexCall; calls: string[] } {
  const calls: string[] = [];
  const call = (async (method: string, params: unknown, schema: { parse(value: unknown): unknown }) => {
    calls.push(method);
    const p = params as { limit?: number; sortDirection?: 'asc' | 'desc'; cursor?: string; turnId?: string };
    if (method === 'thread/turns/list') return schema.parse({ data: turns, nextCursor: null });
    // `turnId` lists one turn's items only.
    const entries = p.turnId === undefined ? allEntries : allEntries.filter((entry) => entry.turnId === p.turnId);
    const direction = p.sortDirection ?? 'asc';
    const limit = p.limit ?? 50;
    // A cursor names the next position to read and the direction it reads in.
    let at = direction === 'desc' ? entries.length - 1 : 0;
    if (p.cursor) at = Number(p.cursor.split(':')[1]);
    const data: Entry[] = [];
    for (let i = at; data.length < limit && i >= 0 && i < entries.length; i += direction === 'desc' ? -1 : 1)
      data.push(entries[i]!);
    const first = entries.indexOf(data[0]!);
    const last = entries.indexOf(data.at(-1)!);
    const next = direction === 'desc' ? last - 1 : last + 1;
    const nextCursor = data.length > 0 && next >= 0 && next < entries.length ? `pos:${next}` : null;
    // The reversed cursor includes its anchor, the page's first item.
    const backwardsCursor = data.length > 0 ? `pos:${first}` : null;
    return schema.parse({ data, nextCursor, backwardsCursor });
  }) as CodexCall;
  return { call, calls };
}

const msg = (id: string, text: string) => ({ type: 'agentMessage', id, text });
const ENTRIES: Entry[] = [
  {
    turnId: 't1',
    item: { type: 'userMessage', id: 'u1', clientId: 'op-1', content: [{ type: 'text', text: 'first' }] },
    startedAtMs: 10,
  },
  { turnId: 't1', item: msg('a1', 'one'), startedAtMs: 11 },
  {
    turnId: 't1',
    item: { type: 'commandExecution', id: 'c1', command: 'ls', status: 'completed', aggregatedOutput: '' },
    startedAtMs: 12,
  },
  { turnId: 't1', item: msg('a2', 'two'), startedAtMs: 13 },
  {
    turnId: 't2',
    item: { type: 'userMessage', id: 'u2', clientId: null, content: [{ type: 'text', text: 'second' }] },
    startedAtMs: 20,
  },
  { turnId: 't2', item: { type: 'somethingNew', id: 'n1' }, startedAtMs: 21 },
];
const TURNS = [
  { id: 't1', status: 'completed', error: null, startedAt: 0, completedAt: 1, durationMs: 1000 },
  { id: 't2', status: 'failed', error: { message: 'quota' }, startedAt: 2, completedAt: 3, durationMs: 500 },
];
const RECORDS: Record<string, TurnRecord> = {
  t1: {
    usage: { inputTokens: 5, outputTokens: 6, cachedInputTokens: null, reasoningTokens: null },
    plan: { explanation: null, entries: [{ text: 'Step', status: 'completed' }], createdAt: 11 },
  },
};

const idOf = (entry: HistoryEntry) => (entry.kind === 'item' ? entry.item.itemId : entry.itemId);
const request = { threadId: 'th', sessionId: 's', cwd: '/p', parentItemId: null, before: null, after: null };

describe('TL-4 the saved Codex thread, page by page', () => {
  const whole = ['u1', 'a1', 'c1', 'a2', 'plan:t1', 'turn:t1', 'u2', 'n1', 'error:t2', 'turn:t2'];

  it('TL-4 every page size walks back to the first item and forward again to the newest, the same entries without repeats', async () => {
    for (let limit = 1; limit <= 7; limit += 1) {
      const history = new CodexHistory(
        fakeCodex(ENTRIES, TURNS).call,
        (_s, turnId) => RECORDS[turnId] ?? { usage: null, plan: null },
      );
      const pages: HistoryEntry[][] = [];
      let page = await history.page({ ...request, limit });
      pages.unshift(page.entries);
      expect(page.newer).toBeNull();
      for (let i = 0; i < 20 && page.older; i += 1) {
        page = await history.page({ ...request, limit, before: page.older });
        pages.unshift(page.entries);
      }
      expect(pages.flat().map(idOf)).toEqual(whole);
      const forward = [...page.entries];
      for (let i = 0; i < 20 && page.newer; i += 1) {
        page = await history.page({ ...request, limit, after: page.newer });
        forward.push(...page.entries);
      }
      expect(forward.map(idOf)).toEqual(whole);
    }
  });

  it('TL-1 a turn closes with its kept plan, the error it failed with and its end; user messages keep their client id', async () => {
    const history = new CodexHistory(
      fakeCodex(ENTRIES, TURNS).call,
      (_s, turnId) => RECORDS[turnId] ?? { usage: null, plan: null },
    );
    const { entries } = await history.page({ ...request, limit: 50 });
    const byId = new Map(entries.map((e) => [idOf(e), e]));
    expect(byId.get('u1')).toEqual({
      kind: 'user',
      itemId: 'u1',
      text: 'first',
      createdAt: 10,
      clientId: 'op-1',
      turnClientId: 'op-1',
    });
    // Every entry of a turn names the message that started it: t2's was sent elsewhere.
    expect(entries.map((entry) => entry.turnClientId)).toEqual([
      'op-1',
      'op-1',
      'op-1',
      'op-1',
      'op-1',
      'op-1',
      null,
      null,
      null,
      null,
    ]);
    expect(byId.get('c1')).toEqual({
      kind: 'command',
      itemId: 'c1',
      command: 'ls',
      createdAt: 12,
      turnClientId: 'op-1',
    });
    expect(byId.get('plan:t1')).toMatchObject({
      kind: 'item',
      item: { kind: 'plan', entries: [{ text: 'Step', status: 'completed' }], createdAt: 11 },
    });
    expect(byId.get('turn:t1')).toMatchObject({
      item: { kind: 'turnEnd', status: 'completed', durationMs: 1000, usage: { inputTokens: 5 }, createdAt: 1000 },
    });
    expect(byId.get('error:t2')).toMatchObject({ item: { kind: 'agentError', message: 'quota', createdAt: 3000 } });
    expect(byId.get('turn:t2')).toMatchObject({
      item: { kind: 'turnEnd', status: 'failed', error: 'quota', usage: null },
    });
    expect(byId.get('n1')).toMatchObject({ item: { kind: 'rawItem', label: 'Codex somethingNew' } });
  });

  it('TL-3 a kept plan is saved where it was first shown live, after the item it followed, at every page size', async () => {
    const placed: Record<string, TurnRecord> = {
      ...RECORDS,
      t1: { ...RECORDS.t1!, plan: { ...RECORDS.t1!.plan!, after: 'a1' } },
    };
    const expected = ['u1', 'a1', 'plan:t1', 'c1', 'a2', 'turn:t1', 'u2', 'n1', 'error:t2', 'turn:t2'];
    for (let limit = 1; limit <= 7; limit += 1) {
      const history = new CodexHistory(
        fakeCodex(ENTRIES, TURNS).call,
        (_s, turnId) => placed[turnId] ?? { usage: null, plan: null },
      );
      const pages: HistoryEntry[][] = [];
      let page = await history.page({ ...request, limit });
      pages.unshift(page.entries);
      for (let i = 0; i < 20 && page.older; i += 1) {
        page = await history.page({ ...request, limit, before: page.older });
        pages.unshift(page.entries);
      }
      expect(pages.flat().map(idOf), `limit ${limit}`).toEqual(expected);
    }
  });

  it('TL-4 a turn still running has no end yet; a cursor that is not ours is refused', async () => {
    const running = [{ ...TURNS[0] }, { ...TURNS[1], status: 'inProgress', error: null }];
    const history = new CodexHistory(fakeCodex(ENTRIES, running).call, () => ({ usage: null, plan: null }));
    const { entries } = await history.page({ ...request, limit: 50 });
    expect(entries.map(idOf).slice(-3)).toEqual(['turn:t1', 'u2', 'n1']);
    await expect(history.page({ ...request, limit: 5, before: 'not-a-cursor' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('TL-3 an item Codex saved for a turn after the next turn began: each turn ends once, after its last item, at every page size', async () => {
    // A command of t1 that completed after the Stop is saved after t2's message.
    const interleaved: Entry[] = [
      {
        turnId: 't1',
        item: { type: 'userMessage', id: 'u1', clientId: 'op-1', content: [{ type: 'text', text: 'first' }] },
        startedAtMs: 10,
      },
      { turnId: 't1', item: msg('a1', 'one'), startedAtMs: 11 },
      {
        turnId: 't2',
        item: { type: 'userMessage', id: 'u2', clientId: null, content: [{ type: 'text', text: 'second' }] },
        startedAtMs: 20,
      },
      {
        turnId: 't1',
        item: { type: 'commandExecution', id: 'c1', command: 'sleep 25', status: 'failed', aggregatedOutput: '' },
        startedAtMs: 12,
      },
      { turnId: 't2', item: msg('a2', 'two'), startedAtMs: 21 },
    ];
    const whole = ['u1', 'a1', 'u2', 'c1', 'plan:t1', 'turn:t1', 'a2', 'error:t2', 'turn:t2'];
    for (let limit = 1; limit <= 6; limit += 1) {
      const history = new CodexHistory(
        fakeCodex(interleaved, TURNS).call,
        (_s, turnId) => RECORDS[turnId] ?? { usage: null, plan: null },
      );
      const pages: HistoryEntry[][] = [];
      let page = await history.page({ ...request, limit });
      pages.unshift(page.entries);
      for (let i = 0; i < 20 && page.older; i += 1) {
        page = await history.page({ ...request, limit, before: page.older });
        pages.unshift(page.entries);
      }
      expect(pages.flat().map(idOf), `limit ${limit}`).toEqual(whole);
    }
  });
});
