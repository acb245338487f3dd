import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { startCodexAdapter, wholeHistory, type CodexAdapterHarness } from '../../fixtures/codexAdapterHarness';
import { injectCodexEvents } from '../../fixtures/codexEventInjector';
import { codexConfigToml } from '../../fixtures/fakeCodexModel';
import { messageReply, queuedReplies } from '../../fixtures/fakeCodexTimeline';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { recordingRunContext, type RunRecording } from '../../fixtures/recordingRunContext';

/** What the launcher writes into Codex's stdout after `turn/started` (runs in the launcher: self-contained). */
function badEvents(threadId: string, turnId: string): string[] {
  const note = (method: string, params: Record<string, unknown>) =>
    JSON.stringify({ method, params: { threadId, turnId, ...params } });
  const cut = JSON.stringify({ output: JSON.stringify({ output: 'never whole' }) }).slice(0, 30);
  return [
    note('item/started', { item: { type: 'hologramProjection', id: 'bad-unknown', beam: 7 }, startedAtMs: 1 }),
    note('item/completed', { item: { type: 'hologramProjection', id: 'bad-unknown', beam: 8 }, completedAtMs: 2 }),
    note('item/completed', {
      item: {
        type: 'mcpToolCall',
        id: 'bad-envelope',
        server: 's',
        tool: 't',
        status: 'completed',
        arguments: {},
        result: { content: [{ type: 'text', text: cut }] },
        error: null,
      },
      completedAtMs: 3,
    }),
    note('item/completed', {
      item: {
        type: 'fileChange',
        id: 'bad-binary',
        status: 'completed',
        changes: [{ path: '/x/logo.png', kind: { type: 'add' }, diff: '\u0089PNG\u0000\u0000IHDR' }],
      },
      completedAtMs: 4,
    }),
    note('item/completed', {
      item: { type: 'fileChange', id: 'bad-shape', status: 'completed', changes: 'not a list' },
      completedAtMs: 5,
    }),
    note('item/agentMessage/delta', { itemId: 'nobody', delta: 'a delta for an item never started' }),
    note('item/hologramProjection/delta', { itemId: 'bad-unknown', delta: 'an event this version does not know' }),
    '{"method":"item/completed","params":{"threadId":"' + threadId + '","item":{"type":"agentMess',
    'not json at all',
  ];
}

describe('TL-1 bad and unknown Codex events give rows, never a crash or a dropped turn', () => {
  let model: FakeModelServer;
  let harness: CodexAdapterHarness;
  let run: RunRecording;

  beforeAll(async () => {
    model = await startFakeModelServer(queuedReplies([messageReply('Still here.')]));
    const launcher = injectCodexEvents(installedAgents().codexBin, badEvents);
    harness = startCodexAdapter({ codexBin: launcher, configToml: codexConfigToml(model.url) });
    run = recordingRunContext({ sessionId: harness.sessionId, cwd: harness.project, text: 'Go on regardless' });
    await harness.agent.run(run.context);
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await harness?.close();
    await model?.close();
  });

  it('TL-1 an unknown item type and an item that fails its schema are generic rows with their raw text', () => {
    const latest = run.latest();
    const unknown = latest.find((i) => i.itemId === 'bad-unknown');
    expect(unknown).toMatchObject({ kind: 'rawItem', label: 'Codex hologramProjection' });
    expect(unknown?.kind === 'rawItem' && JSON.parse(unknown.text.text)).toMatchObject({
      type: 'hologramProjection',
      beam: 8,
    });
    expect(latest.find((i) => i.itemId === 'bad-shape')).toMatchObject({ kind: 'rawItem', label: 'Codex fileChange' });
  });

  it('TL-2 a cut envelope is shown as the text it is; a binary file change has no diff text', () => {
    const cut = JSON.stringify({ output: JSON.stringify({ output: 'never whole' }) }).slice(0, 30);
    expect(run.latest().find((i) => i.itemId === 'bad-envelope')).toMatchObject({
      kind: 'toolCall',
      result: { text: cut },
    });
    expect(run.latest().find((i) => i.itemId === 'bad-binary')).toMatchObject({
      kind: 'fileChange',
      files: [{ binary: true, diff: { text: '' }, added: 0, removed: 0 }],
    });
  });

  it(
    'TL-1 the turn goes on: the real answer and the turn end arrive, and the saved thread reads as usual',
    async () => {
      const latest = run.latest();
      expect(latest.find((i) => i.kind === 'agentText')).toMatchObject({ text: 'Still here.', streaming: false });
      expect(latest.at(-1)).toMatchObject({ kind: 'turnEnd', status: 'completed' });
      expect(latest.some((i) => i.itemId === 'nobody')).toBe(false);
      const saved = (await wholeHistory(harness, 20)).entries.flatMap((e) => (e.kind === 'item' ? [e.item.kind] : []));
      expect(saved).toEqual(['agentText', 'turnEnd']);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
