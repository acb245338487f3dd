import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import {
  killLeftovers,
  liveMembersOfGroup,
  pollUntil,
  stubbornGroupCommand,
  stubbornGroupStarted,
} from '../../fixtures/processTree';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, isCommandRow, waitForCommand } from '../../fixtures/sessionHelpers';

/** The job ignores SIGTERM, so every stop here lasts the whole grace before SIGKILL: short, not the default 2 s. */
const KILL_GRACE_MS = 250;

/**
 * SES-5 through the real runtime: a command whose background job ignores SIGTERM is stopped as a
 * whole process group by run.cancel, session delete, runtime SIGTERM, and, after a runtime
 * SIGKILL, by the restarted runtime. "Stopped" means no process of its group is alive.
 */
describe('SES-5 a command’s whole process group is stopped', () => {
  let dirs: RuntimeDirs | undefined;
  let runtime: RuntimeProcess | undefined;
  let client: RpcClient | undefined;

  afterEach(async () => {
    client?.close();
    await runtime?.kill();
    if (dirs) for (const dir of dirs.projectDirs) killLeftovers(dir);
    dirs?.remove();
    dirs = runtime = client = undefined;
  });

  async function start(): Promise<RpcClient> {
    dirs ??= makeRuntimeDirs();
    runtime = await startRuntimeProcess({
      dataDir: dirs.dataDir,
      projectDirs: dirs.projectDirs,
      env: { HBCODE_COMMAND_KILL_GRACE_MS: String(KILL_GRACE_MS) },
    });
    client = await runtime.connect();
    return client;
  }

  async function startStubborn(base: number): Promise<{ sessionId: string; runId: string; pgid: number }> {
    const sessionId = await createShellSession(client!);
    const { runId } = await client!.call('chat.send', {
      sessionId,
      operationId: crypto.randomUUID(),
      text: stubbornGroupCommand(base),
    });
    const pgid = await stubbornGroupStarted(dirs!.projectDirs[0]!, base);
    return { sessionId, runId, pgid };
  }

  const groupGone = (pgid: number) =>
    pollUntil(() => liveMembersOfGroup(pgid).length === 0, `no process of group ${pgid} is alive`);

  it('SES-5 run.cancel: the row says cancelled and no process of the group is alive', async () => {
    await start();
    const { sessionId, runId, pgid } = await startStubborn(1030);
    await client!.call('run.cancel', { sessionId, runId });
    const row = await waitForCommand(client!, sessionId, runId);
    expect(row).toMatchObject({ status: 'cancelled', complete: true });
    await groupGone(pgid);
    expect(liveMembersOfGroup(pgid)).toEqual([]);
  });

  it('SES-5 session delete: the delete answers once no process of the group is alive', async () => {
    await start();
    const { sessionId, pgid } = await startStubborn(1040);
    expect(await client!.call('sessions.delete', { sessionId })).toEqual({});
    expect(liveMembersOfGroup(pgid)).toEqual([]);
  });

  it('SES-5 runtime SIGTERM: the runtime exits 0 only after no process of the group is alive', async () => {
    await start();
    const { sessionId, runId, pgid } = await startStubborn(1050);
    client!.close();
    expect(await runtime!.stop()).toBe(0);
    expect(liveMembersOfGroup(pgid)).toEqual([]);

    await start();
    const row = (await client!.call('sessions.timeline', { sessionId })).rows
      .filter(isCommandRow)
      .find((r) => r.runId === runId);
    expect(row).toMatchObject({ status: 'cancelled', error: 'Stopped because the runtime shut down.' });
  });

  it('SES-5 runtime SIGKILL: the restarted runtime stops the surviving group before it marks the row, and the row says so', async () => {
    await start();
    const { sessionId, runId, pgid } = await startStubborn(1060);
    await runtime!.kill();
    // The kill left the whole group running: nothing of the dead runtime could stop it.
    expect(liveMembersOfGroup(pgid).length).toBeGreaterThan(0);

    await start();
    await groupGone(pgid);
    const row = (await client!.call('sessions.timeline', { sessionId })).rows
      .filter(isCommandRow)
      .find((r) => r.runId === runId);
    expect(row).toMatchObject({ status: 'failed', complete: true });
    expect(row!.error).toMatch(
      /runtime stopped while this command was running.*its processes were stopped when the runtime started again/,
    );
  });
});
