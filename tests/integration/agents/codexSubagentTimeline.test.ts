import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentItem } from '../../../lib/protocol/rows';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { startCodexAdapter, wholeHistory, type CodexAdapterHarness } from '../../fixtures/codexAdapterHarness';
import { codexConfigToml } from '../../fixtures/fakeCodexModel';
import { subagentScript } from '../../fixtures/fakeCodexTimeline';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { recordingRunContext, type RunRecording } from '../../fixtures/recordingRunContext';

const TASK = 'Count the files in the project';

describe('TL-1 a Codex subagent is a row that opens its own timeline', () => {
  let model: FakeModelServer;
  let harness: CodexAdapterHarness;
  let run: RunRecording;

  beforeAll(async () => {
    model = await startFakeModelServer(subagentScript(TASK, 'ls', 'There are 2 files.'));
    // The plain fake model is offered Codex's multi-agent tools.
    harness = startCodexAdapter({
      codexBin: installedAgents().codexBin,
      configToml: codexConfigToml(model.url),
      files: { 'a.txt': 'a\n', 'b.txt': 'b\n' },
    });
    run = recordingRunContext({ sessionId: harness.sessionId, cwd: harness.project, text: 'Delegate the counting' });
    await harness.agent.run(run.context);
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await harness?.close();
    await model?.close();
  });

  it('TL-1 live: the spawn is a subagent row; the subagent’s prompt, command, answer and turn end are rows of its own timeline', () => {
    const latest = run.latest();
    const spawn = latest.find((i) => i.kind === 'subagent')!;
    expect(spawn).toMatchObject({ title: TASK, status: 'completed', parentItemId: null });
    const own = latest.filter((i) => i.parentItemId === spawn.itemId);
    expect(own.map((i) => i.kind)).toEqual(['userText', 'toolCall', 'agentText', 'turnEnd']);
    expect(own[0]).toMatchObject({ text: TASK });
    // The sandboxed login shell may print its own profile's warnings first: the listing ends the output.
    expect(own[1]).toMatchObject({
      tool: 'shell',
      status: 'completed',
      result: { text: expect.stringMatching(/(^|\n)a\.txt\nb\.txt\n$/) },
    });
    expect(own[2]).toMatchObject({ text: 'There are 2 files.' });
    expect(latest.find((i) => i.kind === 'toolCall' && i.tool === 'collab:wait')).toMatchObject({
      status: 'completed',
      result: { text: 'There are 2 files.' },
    });
    // The subagent's rows never land in the session's own timeline.
    expect(
      latest
        .filter((i) => i.parentItemId === null && i.kind === 'agentText')
        .map((i) => (i.kind === 'agentText' ? i.text : '')),
    ).not.toContain('There are 2 files.');
  });

  it(
    'TL-4 saved: the subagent’s timeline is paged through the agent by the row’s item id, the same rows as live',
    async () => {
      const spawn = run.latest().find((i) => i.kind === 'subagent')!;
      const { entries } = await wholeHistory(harness, 2, spawn.itemId);
      const saved = entries.flatMap((e) => (e.kind === 'item' ? [e.item] : []));
      expect(saved[0]).toMatchObject({ kind: 'userText', text: TASK, parentItemId: spawn.itemId });
      const live = run.latest().filter((i): i is AgentItem => i.parentItemId === spawn.itemId);
      expect(saved).toEqual(live);
      // The session's own saved timeline has the spawn row where the live one was.
      const mainEntries = (await wholeHistory(harness, 50)).entries;
      // Nothing of the subagent's own timeline shows in the session's: only the spawn, the wait and the parent's text.
      expect(mainEntries.map((e) => (e.kind === 'item' ? e.item.kind : e.kind))).toEqual([
        'user',
        'subagent',
        'toolCall',
        'agentText',
        'turnEnd',
      ]);
      const main = mainEntries.flatMap((e) => (e.kind === 'item' ? [e.item] : []));
      expect(main.find((i) => i.itemId === spawn.itemId)).toEqual(spawn);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
