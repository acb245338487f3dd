import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { startCodexAdapter, wholeHistory, type CodexAdapterHarness } from '../../fixtures/codexAdapterHarness';
import { injectCodexEvents } from '../../fixtures/codexEventInjector';
import { codexConfigToml } from '../../fixtures/fakeCodexModel';
import { messageReply, queuedReplies } from '../../fixtures/fakeCodexTimeline';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { recordingRunContext, type RunRecording } from '../../fixtures/recordingRunContext';

/**
 * Codex 0.171 offers its plan tool to none of the models a test can name, so the turn's plan
 * updates are written into its stdout in the exact shape of `turn/plan/updated` (runs in the launcher).
 */
function planUpdates(threadId: string, turnId: string): string[] {
  const plan = (statuses: string[]) =>
    JSON.stringify({
      method: 'turn/plan/updated',
      params: {
        threadId,
        turnId,
        explanation: 'Edit, then test',
        plan: [
          { step: 'Edit the file', status: statuses[0] },
          { step: 'Run the tests', status: statuses[1] },
        ],
      },
    });
  return [plan(['inProgress', 'pending']), plan(['completed', 'inProgress'])];
}

describe('TL-1 a Codex turn plan is one row updated in place, kept for the saved turn', () => {
  let model: FakeModelServer;
  let harness: CodexAdapterHarness;
  let run: RunRecording;

  beforeAll(async () => {
    model = await startFakeModelServer(queuedReplies([messageReply('Planned.')]));
    harness = startCodexAdapter({
      codexBin: injectCodexEvents(installedAgents().codexBin, planUpdates),
      configToml: codexConfigToml(model.url),
    });
    run = recordingRunContext({ sessionId: harness.sessionId, cwd: harness.project, text: 'Plan it' });
    await harness.agent.run(run.context);
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await harness?.close();
    await model?.close();
  });

  it(
    'TL-1 TL-3 live: both updates land on the same row; saved and after a restart: the last state, where it was first shown live',
    async () => {
      const plans = run.updates.filter((i) => i.kind === 'plan');
      expect(plans).toHaveLength(2);
      expect(new Set(plans.map((p) => p.itemId)).size).toBe(1);
      const last = plans.at(-1)!;
      expect(last).toMatchObject({
        explanation: 'Edit, then test',
        entries: [
          { text: 'Edit the file', status: 'completed' },
          { text: 'Run the tests', status: 'inProgress' },
        ],
      });
      const savedItems = async () =>
        (await wholeHistory(harness, 20)).entries.flatMap((e) => (e.kind === 'item' ? [e.item] : []));
      const saved = await savedItems();
      // TL-3: the saved plan keeps the place it was first shown in live, among the turn's rows in their live order.
      const liveOrder = [...new Map(run.updates.map((i) => [i.itemId, i.kind])).values()];
      expect(saved.map((i) => i.kind)).toEqual(liveOrder);
      expect(saved.map((i) => i.kind)).toEqual(['plan', 'agentText', 'turnEnd']);
      expect(saved[0]).toEqual(last);
      await harness.restart();
      expect(await savedItems()).toEqual(saved);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
