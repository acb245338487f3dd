import { describe, expect, it } from 'vitest';
import type { AgentItem } from '../../../../../lib/protocol/rows';
import { CodexLiveItems } from '../../../../../server/runtime/agents/codex/codexLiveItems';

const THREAD = 'thread-1';
const TURN = 'turn-1';

/** A live mapper with a recording context; notifications in the shapes `codex app-server` sends. */
function live() {
  const items: AgentItem[] = [];
  const kept: { turnId: string; what: string; value: unknown }[] = [];
  const keeper = {
    usage: (turnId: string, value: unknown) => kept.push({ turnId, what: 'usage', value }),
    plan: (turnId: string, value: unknown) => kept.push({ turnId, what: 'plan', value }),
  };
  let activity = 0;
  const mapper = new CodexLiveItems(
    { item: (item) => items.push(structuredClone(item)), activity: () => (activity += 1) },
    THREAD,
    '/p',
    keeper,
    () => 1000,
  );
  const send = (method: string, params: Record<string, unknown>) =>
    mapper.notify(method, { threadId: THREAD, turnId: TURN, ...params });
  const item = (started: boolean, raw: Record<string, unknown>, threadId = THREAD) =>
    mapper.notify(started ? 'item/started' : 'item/completed', { threadId, turnId: TURN, item: raw, startedAtMs: 500 });
  return { items, kept, mapper, send, item, activity: () => activity };
}

describe('TL-1 live Codex rows from app-server notifications', () => {
  it('TL-1 TL-3 the plan of turn/plan/updated is one row updated in place, kept with the item it was first shown after', () => {
    const { items, kept, send, item } = live();
    item(true, { type: 'agentMessage', id: 'm1', text: '' });
    send('turn/plan/updated', {
      explanation: 'Two steps',
      plan: [
        { step: 'Edit', status: 'inProgress' },
        { step: 'Test', status: 'pending' },
      ],
    });
    item(true, { type: 'agentMessage', id: 'm2', text: '' });
    send('turn/plan/updated', {
      explanation: 'Two steps',
      plan: [
        { step: 'Edit', status: 'completed' },
        { step: 'Test', status: 'inProgress' },
      ],
    });
    expect(items.filter((i) => i.kind === 'plan').map((i) => i.itemId)).toEqual([`plan:${TURN}`, `plan:${TURN}`]);
    expect(items.at(-1)).toMatchObject({
      kind: 'plan',
      explanation: 'Two steps',
      entries: [
        { text: 'Edit', status: 'completed' },
        { text: 'Test', status: 'inProgress' },
      ],
    });
    // The last plan is kept for the saved turn (Codex's history has no plan items for it), with
    // the item it was first shown after, where the saved turn shows it too.
    expect(kept.at(-1)).toEqual({
      turnId: TURN,
      what: 'plan',
      value: {
        explanation: 'Two steps',
        entries: [
          { text: 'Edit', status: 'completed' },
          { text: 'Test', status: 'inProgress' },
        ],
        createdAt: 1000,
        after: 'm1',
      },
    });
  });

  it('TL-1 a proposed plan streams through item/plan/delta as the whole text so far', () => {
    const { items, item, send } = live();
    item(true, { type: 'plan', id: 'p1', text: '' });
    send('item/plan/delta', { itemId: 'p1', delta: '1. Read' });
    send('item/plan/delta', { itemId: 'p1', delta: '\n2. Write' });
    expect(items.at(-1)).toMatchObject({ kind: 'plan', itemId: 'p1', explanation: '1. Read\n2. Write' });
  });

  it('TL-1 reasoning summaries stream part by part', () => {
    const { items, item, send } = live();
    item(true, { type: 'reasoning', id: 'r1', summary: [], content: [] });
    send('item/reasoning/summaryPartAdded', { itemId: 'r1', summaryIndex: 0 });
    send('item/reasoning/summaryTextDelta', { itemId: 'r1', summaryIndex: 0, delta: 'First.' });
    send('item/reasoning/summaryTextDelta', { itemId: 'r1', summaryIndex: 1, delta: 'Second.' });
    expect(items.at(-1)).toMatchObject({
      kind: 'reasoning',
      text: 'First.\n\nSecond.',
      streaming: true,
      createdAt: 500,
    });
  });

  it('TL-1 an unknown item type, a truncated result envelope and a binary diff give rows, and the turn goes on to its end', () => {
    const { items, item, send, activity } = live();
    item(true, { type: 'quantumWidget', id: 'q1', flux: 3 });
    const cut = JSON.stringify({ output: JSON.stringify({ output: 'the result' }) }).slice(0, 25);
    item(false, {
      type: 'mcpToolCall',
      id: 'm1',
      server: 's',
      tool: 't',
      status: 'completed',
      arguments: {},
      result: { content: [{ type: 'text', text: cut }] },
      error: null,
    });
    item(false, {
      type: 'fileChange',
      id: 'f1',
      status: 'completed',
      changes: [{ path: '/p/logo.png', kind: { type: 'add' }, diff: 'PNG\u0000\u0000' }],
    });
    send('item/quantumWidget/delta', { itemId: 'q1', delta: 'ignored' });
    send('turn/completed', {
      turn: { id: TURN, status: 'completed', error: null, startedAt: 1, completedAt: 2, durationMs: 1000 },
    });
    expect(items.find((i) => i.itemId === 'q1')).toMatchObject({ kind: 'rawItem', label: 'Codex quantumWidget' });
    expect(items.find((i) => i.itemId === 'm1')).toMatchObject({ kind: 'toolCall', result: { text: cut } });
    expect(items.find((i) => i.itemId === 'f1')).toMatchObject({
      kind: 'fileChange',
      files: [{ path: 'logo.png', binary: true, diff: { text: '' } }],
    });
    expect(items.at(-1)).toMatchObject({
      kind: 'turnEnd',
      itemId: `turn:${TURN}`,
      status: 'completed',
      durationMs: 1000,
      createdAt: 2000,
    });
    expect(activity()).toBe(5);
  });

  it('TL-1 a notification whose shape is wrong is skipped without a crash', () => {
    const { items, mapper } = live();
    expect(() => mapper.notify('item/agentMessage/delta', { threadId: THREAD, nonsense: true })).not.toThrow();
    expect(() => mapper.notify('item/completed', { threadId: THREAD, item: 'garbage' })).not.toThrow();
    expect(items.map((i) => i.kind)).toEqual(['rawItem']);
  });

  it('TL-1 each error Codex reports is its own row; the turn end carries the usage summed over requests', () => {
    const { items, kept, send } = live();
    const usage = (input: number) => ({
      tokenUsage: {
        last: { inputTokens: input, cachedInputTokens: 1, outputTokens: 2, reasoningOutputTokens: 3 },
        total: {},
      },
    });
    send('thread/tokenUsage/updated', usage(10));
    send('thread/tokenUsage/updated', usage(20));
    send('error', { error: { message: 'Reconnecting', additionalDetails: 'socket closed' }, willRetry: true });
    send('error', { error: { message: 'Gave up' }, willRetry: false });
    send('turn/completed', { turn: { id: TURN, status: 'failed', error: { message: 'Gave up' }, completedAt: 3 } });
    expect(items.map((i) => i.itemId)).toEqual([`error:${TURN}`, `error:${TURN}:1`, `turn:${TURN}`]);
    expect(items[0]).toMatchObject({ kind: 'agentError', message: 'Reconnecting', detail: { text: 'socket closed' } });
    expect(items[2]).toMatchObject({
      status: 'failed',
      error: 'Gave up',
      usage: { inputTokens: 30, outputTokens: 4, cachedInputTokens: 2, reasoningTokens: 6 },
    });
    expect(kept).toEqual([
      {
        turnId: TURN,
        what: 'usage',
        value: { inputTokens: 30, outputTokens: 4, cachedInputTokens: 2, reasoningTokens: 6 },
      },
    ]);
  });

  it('TL-1 a spawned subagent gets a row, and its thread’s items land in that row’s own timeline', () => {
    const { items, item, mapper } = live();
    item(true, {
      type: 'collabAgentToolCall',
      id: 'c1',
      tool: 'spawnAgent',
      status: 'inProgress',
      senderThreadId: THREAD,
      receiverThreadIds: ['child'],
      prompt: 'Look around',
      agentsStates: {},
    });
    expect(mapper.follows('child')).toBe(true);
    expect(mapper.follows('stranger')).toBe(false);
    item(false, { type: 'agentMessage', id: 'a1', text: 'child says hi' }, 'child');
    item(
      false,
      { type: 'commandExecution', id: 'x1', command: 'ls', status: 'completed', aggregatedOutput: 'a\n' },
      'child',
    );
    expect(items[0]).toMatchObject({ kind: 'subagent', itemId: 'c1', status: 'running', parentItemId: null });
    expect(items[1]).toMatchObject({ kind: 'agentText', parentItemId: 'c1', text: 'child says hi' });
    expect(items[2]).toMatchObject({ kind: 'toolCall', tool: 'shell', parentItemId: 'c1' });
  });

  it('TL-1 the turn’s own commands are left to the command rows', () => {
    const { items, item } = live();
    item(true, { type: 'commandExecution', id: 'x1', command: 'ls', status: 'inProgress', aggregatedOutput: null });
    expect(items).toEqual([]);
  });
});
