import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { codexSettings, createAgentSession } from '../../fixtures/agentSessions';
import { codexConfigToml, codexTurnScript, responsesInput } from '../../fixtures/fakeCodexModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { steerCrashRounds } from '../../fixtures/steerCrashRounds';

/**
 * ACC-6 under crashes with the real Codex: the runtime is killed (SIGKILL) 0–3 s after a steer into
 * a turn whose command takes a second, so the steer waits in Codex until the model's next request.
 */
describe('Steering a Codex turn when the runtime is killed', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;

  beforeAll(async () => {
    const agents = installedAgents();
    model = await startFakeModelServer(codexTurnScript(() => ({ command: 'sleep 1; echo slept' })));
    runtime = await startRuntimeProcess({ env: { HBCODE_CODEX_BIN: agents.codexBin, HBCODE_CODEX_CONFIG_TOML: codexConfigToml(model.url) } });
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await runtime?.stopIfRunning();
    await model?.close();
  });

  it('ACC-6 runtime SIGKILL 0–3 s after a steer, 20 rounds: a steer row says delivered only when the model was sent it', async () => {
    const result = await steerCrashRounds({
      runtime,
      rounds: 20,
      maxKillAfterMs: 3_000,
      seed: 22,
      createSession: (client) => createAgentSession(client, 'codex', undefined, codexSettings({ sandbox: 'danger-full-access', approvalPolicy: 'never' })),
      modelSaw: (text) => model.requests.some((r) => JSON.stringify(responsesInput(r)).includes(text)),
    });
    runtime = result.runtime;
    expect(result.outcomes).toContain('delivered');
    expect(result.outcomes).toContain('notDelivered');
  }, 20 * 60_000);
});
