import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { CommandRow, TimelineRow } from '../../../lib/protocol/rows';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, isCommandRow, readWholeOutput, waitForCommand } from '../../fixtures/sessionHelpers';
import { processAlive } from '../../../server/runtime/store/dataLock';
import { waitUntil } from '../../fixtures/waitUntil';

const SHUTDOWN_ERROR = 'Stopped because the runtime shut down.';

const processExists = processAlive;

/** SIGTERM, and fail clearly if the runtime has not exited in time instead of hanging the test. */
async function stopWithin(runtime: RuntimeProcess, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the runtime did not exit within ${ms} ms of SIGTERM:\n${runtime.output()}`)),
      ms,
    );
  });
  try {
    return await Promise.race([runtime.stop(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** `tick 1\ntick 2\n…` up to the given count, as the commands below print it. */
const ticks = (count: number) => Array.from({ length: count }, (_, i) => `tick ${i + 1}\n`).join('');

/** A shell loop that records its pid and prints numbered ticks; bounded so no orphan runs for long. */
const tickingCommand = (pidFile: string, maxTicks: number) =>
  `echo $$ > ${pidFile}; i=0; while [ $i -lt ${maxTicks} ]; do i=$((i+1)); echo tick $i; sleep 0.05; done`;

const commandOf = (rows: TimelineRow[], runId: string) => rows.filter(isCommandRow).find((r) => r.runId === runId);

describe('graceful shutdown and crash recovery of a running command', () => {
  let dirs: RuntimeDirs | undefined;
  let runtime: RuntimeProcess | undefined;
  let client: RpcClient | undefined;
  const pids: number[] = [];

  afterEach(async () => {
    client?.close();
    await runtime?.stop();
    // Whatever the outcome, leave no command of these tests running.
    for (const pid of pids.splice(0)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone, as it should be.
      }
    }
    dirs?.remove();
    dirs = runtime = client = undefined;
  });

  async function start(): Promise<RpcClient> {
    runtime = await startRuntimeProcess({ dataDir: dirs!.dataDir, projectDirs: dirs!.projectDirs });
    client = await runtime.connect();
    return client;
  }

  /** Starts the ticking command and a message queued behind it; returns once a few ticks are stored. */
  async function startTicking(
    sessionId: string,
    maxTicks: number,
  ): Promise<{ runId: string; queuedRunId: string; pid: number; seen: CommandRow }> {
    const pidFile = path.join(dirs!.projectDirs[0]!, 'ticking.pid');
    const { runId } = await client!.call('chat.send', {
      sessionId,
      operationId: crypto.randomUUID(),
      text: tickingCommand(pidFile, maxTicks),
    });
    const queued = await client!.call('chat.send', {
      sessionId,
      operationId: crypto.randomUUID(),
      text: 'echo queued-message-ran',
    });
    const seen = await waitForCommand(
      client!,
      sessionId,
      runId,
      (r) => r.status === 'running' && r.byteLength >= ticks(5).length,
    );
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    pids.push(pid);
    expect(processExists(pid)).toBe(true);
    return { runId, queuedRunId: queued.runId, pid, seen };
  }

  it('SES-5 / STO-2 on SIGTERM the runtime stops a running command and exits 0; after restart the row is cancelled by shutdown, its output readable, and the queued message runs', async () => {
    dirs = makeRuntimeDirs();
    await start();
    const sessionId = await createShellSession(client!);
    const { runId, queuedRunId, pid, seen } = await startTicking(sessionId, 100_000);

    // A second session runs a command that ignores SIGTERM, like a careless build script.
    const stubbornSession = await createShellSession(client!);
    const stubborn = await client!.call('chat.send', {
      sessionId: stubbornSession,
      operationId: crypto.randomUUID(),
      text: "trap '' TERM; echo stubborn; while true; do sleep 0.1; done",
    });
    await waitForCommand(client!, stubbornSession, stubborn.runId, (r) => r.byteLength === 'stubborn\n'.length);

    client!.close();
    expect(await stopWithin(runtime!, 15_000)).toBe(0);
    expect(runtime!.output()).toContain('shutting down');
    // The command's whole process group was stopped with the runtime.
    expect(processExists(pid)).toBe(false);

    await start();
    const { rows } = await client!.call('sessions.timeline', { sessionId });
    const row = commandOf(rows, runId)!;
    expect(row).toMatchObject({ status: 'cancelled', error: SHUTDOWN_ERROR, complete: true });
    expect(row.endedAt).not.toBeNull();
    expect(rows.find((r) => r.kind === 'message' && r.runId === runId)).toMatchObject({ state: 'cancelled' });
    expect(row.byteLength).toBeGreaterThanOrEqual(seen.byteLength);

    const output = (await readWholeOutput(client!, sessionId, row)).toString();
    expect(output.length).toBe(row.byteLength);
    const lines = output.split('\n').length - 1;
    expect(lines).toBeGreaterThanOrEqual(5);
    expect(output).toBe(ticks(lines));

    const stubbornRow = commandOf(
      (await client!.call('sessions.timeline', { sessionId: stubbornSession })).rows,
      stubborn.runId,
    );
    expect(stubbornRow).toMatchObject({
      status: 'cancelled',
      error: SHUTDOWN_ERROR,
      complete: true,
      byteLength: 'stubborn\n'.length,
    });

    // The message that was queued behind it is delivered by the restarted runtime, once.
    const queuedRow = await waitForCommand(client!, sessionId, queuedRunId);
    expect(queuedRow).toMatchObject({ status: 'exited', exitCode: 0 });
    expect((await readWholeOutput(client!, sessionId, queuedRow)).toString()).toBe('queued-message-ran\n');
    const after = (await client!.call('sessions.timeline', { sessionId })).rows;
    expect(after.filter(isCommandRow)).toHaveLength(2);
  });

  it('OUT-2 / OUT-6 after SIGKILL during a running command, the restarted runtime marks it failed with an error, complete, with its committed output readable', async () => {
    dirs = makeRuntimeDirs();
    await start();
    const sessionId = await createShellSession(client!);
    // Bounded: once its runtime is gone the loop dies of SIGPIPE at its next echo, or ends after 10 s.
    const { runId, queuedRunId, pid, seen } = await startTicking(sessionId, 200);
    const committed = await readWholeOutput(client!, sessionId, seen);
    expect(committed.toString()).toBe(ticks(committed.toString().split('\n').length - 1));

    await runtime!.kill();
    expect((await runtime!.exited).signal).toBe('SIGKILL');
    await waitUntil(() => !processExists(pid), 'the orphaned command died');

    await start();
    const { rows } = await client!.call('sessions.timeline', { sessionId });
    const row = commandOf(rows, runId)!;
    expect(row).toMatchObject({ status: 'failed', complete: true, sourceIncomplete: true, generation: 1 });
    expect(row.error).toMatch(/runtime stopped while this command was running/);
    expect(row.endedAt).not.toBeNull();
    expect(rows.find((r) => r.kind === 'message' && r.runId === runId)).toMatchObject({ state: 'failed' });

    // Everything committed before the kill is still there, byte for byte, and nothing torn after it.
    expect(row.byteLength).toBeGreaterThanOrEqual(seen.byteLength);
    const output = await readWholeOutput(client!, sessionId, row);
    expect(output.length).toBe(row.byteLength);
    expect(output.subarray(0, committed.length).equals(committed)).toBe(true);
    const text = output.toString();
    expect(text).toBe(ticks(text.split('\n').length - 1));
    const page = await client!.call('run.chatCommandOutputRead', {
      appSessionId: sessionId,
      runId,
      commandId: row.commandId,
      generation: row.generation,
      offset: 0,
      length: 1,
    });
    expect(page).toMatchObject({ complete: true, sourceIncomplete: true, availableBytes: row.byteLength });

    // The outbox survived the crash: the queued message runs now.
    const queuedRow = await waitForCommand(client!, sessionId, queuedRunId);
    expect((await readWholeOutput(client!, sessionId, queuedRow)).toString()).toBe('queued-message-ran\n');
  });
});
