import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { createAgentSession } from '../../fixtures/agentSessions';
import { acceptEveryApproval } from '../../fixtures/claudeControlScenario';
import { claudeEnv, claudeTurnScript } from '../../fixtures/fakeClaudeModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { steerCrashRounds } from '../../fixtures/steerCrashRounds';
import { waitUntil } from '../../fixtures/waitUntil';

/**
 * ACC-6 under crashes with the real Claude Code through the Agent SDK: the runtime is killed
 * (SIGKILL) 0–3 s after a steer into a turn whose Bash command takes a second.
 */
describe('Steering a Claude turn when the runtime is killed', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let configDir: string;

  beforeAll(async () => {
    const agents = installedAgents();
    // Claude Code shows a Bash command as a row only once it ended: the command says it started in a file.
    model = await startFakeModelServer(claudeTurnScript(() => ({ command: 'echo > bash-started; sleep 1; echo slept' })));
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-config-'));
    // TL-5: Claude runs under the user's own permission rules; this test's user allows Bash.
    fs.writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash'] } }));
    runtime = await startRuntimeProcess({ env: claudeEnv(model.url, configDir, agents.claudeBin) });
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await runtime?.stopIfRunning();
    await model?.close();
    if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
  });

  it('ACC-6 runtime SIGKILL 0–3 s after a steer, 20 rounds: a steer row says delivered only when the model was sent it', async () => {
    const result = await steerCrashRounds({
      runtime,
      rounds: 20,
      maxKillAfterMs: 3_000,
      seed: 23,
      createSession: (client) => createAgentSession(client, 'claude'),
      modelSaw: (text) => model.requests.some((r) => JSON.stringify(r.body).includes(text)),
      commandStarted: async () => {
        const marker = path.join(runtime.projectDir, 'bash-started');
        await waitUntil(() => fs.existsSync(marker), 'the Bash command runs', { timeoutMs: 120_000 });
        fs.rmSync(marker);
      },
      connected: acceptEveryApproval,
    });
    runtime = result.runtime;
    expect(result.outcomes).toContain('delivered');
    expect(result.outcomes).toContain('notDelivered');
  }, 30 * 60_000);
});
