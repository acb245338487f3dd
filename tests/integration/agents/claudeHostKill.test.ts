import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { readProcStat } from '../../../server/runtime/process/procStat';
import { installedAgents } from '../../fixtures/agentPackages';
import { createAgentSession, waitForRows } from '../../fixtures/agentSessions';
import { acceptEveryApproval } from '../../fixtures/claudeControlScenario';
import { claudeEnv, claudeTurnScript } from '../../fixtures/fakeClaudeModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import {
  childrenRunning,
  isLive,
  killLeftovers,
  pidsRunning,
  pollUntil,
  stubbornGroupCommand,
} from '../../fixtures/processTree';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { makeTempDir } from '../../fixtures/tempDir';

/**
 * SES-8 SES-9: the Claude host killed with SIGKILL while Claude's Bash runs a command whose
 * background job ignores SIGTERM. Claude Code starts the command in a session of its own and
 * each job in a group of its own, so only the host's tag finds them: none may be left, and the
 * turn fails naming the host's exit, not an SDK warning.
 */
describe('a Claude host killed during a Bash command', () => {
  let runtime: RuntimeProcess | undefined;
  let model: FakeModelServer | undefined;
  let client: RpcClient | undefined;

  afterEach(async () => {
    client?.close();
    if (runtime) killLeftovers(runtime.projectDir);
    await runtime?.stopIfRunning();
    await model?.close();
  });

  async function killHostDuringCommand(
    base: number,
  ): Promise<{ sessionId: string; runId: string; sleeps: { pid: number; startTicks: number }[] }> {
    model = await startFakeModelServer(claudeTurnScript(() => ({ command: stubbornGroupCommand(base) })));
    runtime = await startRuntimeProcess({
      env: claudeEnv(model.url, makeTempDir('hbcode-claude-kill-'), installedAgents().claudeBin),
    });
    client = await runtime.connect();
    acceptEveryApproval(client);
    const sessionId = await createAgentSession(client, 'claude');
    const { runId } = await client.call('chat.send', {
      sessionId,
      operationId: crypto.randomUUID(),
      text: 'Run the sleeps',
    });
    const dir = runtime.projectDir;
    const pids = await pollUntil(
      () => {
        const found = [...pidsRunning(dir, `sleep ${base}`), ...pidsRunning(dir, `sleep ${base + 1}`)];
        return found.length === 2 && found;
      },
      'both sleeps of the Bash command run',
      120_000,
    );
    const sleeps = pids.map((pid) => ({ pid, startTicks: readProcStat(pid)!.startTicks }));
    // The command runs outside the host's group: Claude Code gives it a session of its own.
    const [host] = childrenRunning(runtime.child.pid!, 'claudeHost');
    expect(host).toBeDefined();
    expect(sleeps.every((s) => readProcStat(s.pid)!.pgrp !== host)).toBe(true);
    process.kill(host!, 'SIGKILL');
    return { sessionId, runId, sleeps };
  }

  it('leaves no process of the command, and the turn fails naming the host’s exit', async () => {
    const { sessionId, runId, sleeps } = await killHostDuringCommand(4311);
    const rows = await waitForRows(client!, sessionId, (r) =>
      r.some((row) => row.kind === 'message' && row.runId === runId && row.state === 'failed'),
    );
    const message = rows.find((row) => row.kind === 'message' && row.runId === runId);
    expect(message?.kind === 'message' && message.failure).toMatchObject({ code: 'claude_exited' });
    const reason = message?.kind === 'message' ? message.failure!.message : '';
    expect(reason).toContain('killed by SIGKILL');
    expect(reason).not.toContain('CLAUDE_SDK_');
    // The failure is shown once the host and what it started are gone.
    expect(sleeps.filter((s) => isLive(s.pid, s.startTicks))).toEqual([]);
  });

  it('a runtime killed with it stops the command at its next start', async () => {
    const { sleeps } = await killHostDuringCommand(4321);
    await runtime!.kill();
    // Nothing stopped them yet: the runtime died before it could.
    expect(sleeps.filter((s) => isLive(s.pid, s.startTicks)).length).toBeGreaterThan(0);
    runtime = await runtime!.restart();
    expect(sleeps.filter((s) => isLive(s.pid, s.startTicks))).toEqual([]);
  });
});
