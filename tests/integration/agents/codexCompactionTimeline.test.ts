import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { startCodexAdapter, wholeHistory, type CodexAdapterHarness } from '../../fixtures/codexAdapterHarness';
import { codexConfigToml } from '../../fixtures/fakeCodexModel';
import { compactionScript } from '../../fixtures/fakeCodexTimeline';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { recordingRunContext, type RunRecording } from '../../fixtures/recordingRunContext';

describe('TL-1 Codex compacting its context is a row, live and saved', () => {
  let model: FakeModelServer;
  let harness: CodexAdapterHarness;
  let run: RunRecording;

  beforeAll(async () => {
    model = await startFakeModelServer(compactionScript(5000, 'Carried on after compacting.'));
    harness = startCodexAdapter({
      codexBin: installedAgents().codexBin,
      configToml: codexConfigToml(model.url, 'model_auto_compact_token_limit = 1000'),
    });
    run = recordingRunContext({ sessionId: harness.sessionId, cwd: harness.project, text: 'Fill the context' });
    await harness.agent.run(run.context);
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await harness?.close();
    await model?.close();
  });

  it(
    'TL-1 the compaction row comes between the command and the text after it, with the same id saved',
    async () => {
      const latest = run.latest();
      const compaction = latest.find((i) => i.kind === 'compaction');
      expect(compaction).toMatchObject({ text: null, parentItemId: null });
      expect(latest.map((i) => i.kind)).toEqual(['compaction', 'agentText', 'turnEnd']);
      expect(run.commands.map((c) => c.status)).toEqual(['exited']);
      const { entries } = await wholeHistory(harness, 10);
      expect(entries.map((e) => e.kind)).toEqual(['user', 'command', 'item', 'item', 'item']);
      const saved = entries.flatMap((e) => (e.kind === 'item' ? [e.item] : []));
      expect(saved).toEqual(latest);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
