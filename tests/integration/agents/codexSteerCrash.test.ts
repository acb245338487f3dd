import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { MessageRow, TimelineRow } from '../../../lib/protocol/rows';
import { AGENT_INSTALL_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { codexSettings, createAgentSession } from '../../fixtures/agentSessions';
import { codexConfigToml, codexTurnScript, responsesInput } from '../../fixtures/fakeCodexModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { seededRandom } from '../../fixtures/seededRandom';
import { waitForCommand } from '../../fixtures/sessionHelpers';
import { waitUntil } from '../../fixtures/waitUntil';

const ROUNDS = 20;
const MAX_KILL_AFTER_MS = 3_000;

const steerRow = (rows: TimelineRow[], runId: string) => rows.find((r): r is MessageRow => r.kind === 'message' && r.runId === runId);
const modelSaw = (model: FakeModelServer, text: string) => model.requests.some((r) => JSON.stringify(responsesInput(r)).includes(text));

/** A row that says delivered: only true when the model's requests contain the text (ACC-6). */
const saysDelivered = (row: MessageRow | undefined) => row?.state === 'done' || row?.steer === 'delivered';

/**
 * ACC-6 under crashes: the runtime is killed (SIGKILL) 0–3 s after a steer into a real Codex turn
 * whose command takes a second, so the steer waits in Codex until the model's next request. No row
 * may say delivered unless the fake model was sent the text, before the kill or after the restart;
 * a steer cut off says "not delivered" and offers Send again.
 */
describe('Steering a Codex turn when the runtime is killed', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;

  beforeAll(async () => {
    const agents = installedAgents();
    model = await startFakeModelServer(codexTurnScript(() => ({ command: 'sleep 1; echo slept' })));
    runtime = await startRuntimeProcess({ env: { HBCODE_CODEX_BIN: agents.codexBin, HBCODE_CODEX_CONFIG_TOML: codexConfigToml(model.url) } });
    client = await runtime.connect();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await runtime?.stopIfRunning();
    await model?.close();
  });

  it('ACC-6 runtime SIGKILL 0–3 s after a steer, 20 rounds: a steer row says delivered only when the model was sent it', async () => {
    const random = seededRandom(22);
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      // Round 0 dies at once; the last waits for delivery first, so both ends are always covered.
      const killAfterMs = round === 0 ? 0 : round === ROUNDS - 1 ? null : Math.floor(random() * MAX_KILL_AFTER_MS);
      const sessionId = await createAgentSession(client, 'codex', undefined, codexSettings({ sandbox: 'danger-full-access', approvalPolicy: 'never' }));
      const turn = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: `Round ${round}` });
      await waitForCommand(client, sessionId, turn.runId, (r) => r.status === 'running', 90_000);
      const word = `steerword${round}x${crypto.randomBytes(4).toString('hex')}`;
      const steer = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: `Also say ${word}`, mode: 'steer' });
      expect(steer.state, `round ${round}: the answer to the steer`).not.toBe('done');
      if (killAfterMs === null) {
        await waitUntil(async () => saysDelivered(steerRow((await client.call('sessions.timeline', { sessionId })).rows, steer.runId)), 'the steer is delivered', { timeoutMs: 90_000, intervalMs: 50 });
      } else {
        await new Promise((resolve) => setTimeout(resolve, killAfterMs));
        const before = steerRow((await client.call('sessions.timeline', { sessionId })).rows, steer.runId);
        if (saysDelivered(before)) expect(modelSaw(model, word), `round ${round}: delivered before the kill`).toBe(true);
      }
      client.close();
      await runtime.kill();
      runtime = await runtime.restart();
      client = await runtime.connect();
      const after = steerRow((await client.call('sessions.timeline', { sessionId })).rows, steer.runId);
      expect(after, `round ${round}: the steer row after the restart`).toBeDefined();
      if (saysDelivered(after)) {
        expect(after).toMatchObject({ state: 'done', steer: 'delivered' });
        expect(modelSaw(model, word), `round ${round} (killed after ${killAfterMs} ms): delivered, so the model was sent it`).toBe(true);
        outcomes.push('delivered');
      } else {
        expect(after, `round ${round}: a steer cut off says not delivered and offers Send again`).toMatchObject({
          state: 'failed',
          steer: 'notDelivered',
          failure: { code: 'steer_not_delivered', action: 'resend' },
        });
        outcomes.push('notDelivered');
      }
    }
    expect(outcomes).toContain('delivered');
    expect(outcomes).toContain('notDelivered');
  }, 20 * 60_000);
});
