import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { CommandRow } from '../../../lib/protocol/rows';
import { DISK_FULL_MESSAGE } from '../../../server/runtime/errors';
import { omittedMarker } from '../../../server/runtime/output/aggregate';
import { cutOffOutputMessage, STORAGE_FULL_MESSAGE } from '../../../server/runtime/output/recoverArtifact';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, readWholeOutput, runShell, waitForCommand } from '../../fixtures/sessionHelpers';
import { mountSmallDisk, type SmallDisk } from '../../fixtures/smallDisk';

// RPC-3 `storage` and OUT-3 on a real full disk: the data folder is a small tmpfs the test fills.

/** The shell agent's aggregate keeps this much of the head and of the tail. */
const HALF = 512 * 1024;

describe('a desktop whose disk is full', () => {
  let disk: SmallDisk;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let sessionId: string;
  let before: CommandRow;
  let fullRunId = '';

  beforeAll(async () => {
    disk = mountSmallDisk(32);
    runtime = await startRuntimeProcess({ dataDir: disk.dir });
    client = await runtime.connect();
    sessionId = await createShellSession(client);
    before = await runShell(client, sessionId, 'echo stored before the disk filled up');
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    disk?.unmount();
  });

  it('OUT-3 an append that meets a full disk marks its row with the reason; the aggregate then becomes generation 2', async () => {
    const marker = path.join(runtime.projectDir, 'disk-is-full');
    // The command waits at its end until the test has seen the failed row: live updates are
    // throttled (SES-4), so a row that fails and settles at once could skip the failed state.
    const seen = path.join(runtime.projectDir, 'failure-seen');
    const { runId } = await client.call('chat.send', {
      sessionId,
      operationId: crypto.randomUUID(),
      text: `echo started; while [ ! -e ${marker} ]; do sleep 0.05; done; head -c 4000000 /dev/zero | tr '\\0' x; echo; echo ended; while [ ! -e ${seen} ]; do sleep 0.05; done`,
    });
    fullRunId = runId;
    await waitForCommand(client, sessionId, runId, (row) => row.byteLength >= 'started\n'.length);
    expect(disk.fill()).toBeGreaterThan(0);
    fs.writeFileSync(marker, '');
    // While the command runs its row says why the output is unavailable: the disk is full.
    const failed = await waitForCommand(client, sessionId, runId, (r) => r.error !== undefined);
    expect(failed.error).toBe(STORAGE_FULL_MESSAGE);
    expect(failed.status).toBe('running');
    fs.writeFileSync(seen, '');
    const row = await waitForCommand(client, sessionId, runId);
    expect(runtime.output()).toContain('command output append failed');
    // Freeing the reserve let the runtime record the end of the command and store the shell's
    // head/tail aggregate as generation 2 (OUT-3), marked incomplete.
    const printed = Buffer.concat([Buffer.from('started\n'), Buffer.alloc(4_000_000, 'x'), Buffer.from('\nended\n')]);
    const expected = Buffer.concat([
      printed.subarray(0, HALF),
      Buffer.from(omittedMarker(printed.length - 2 * HALF), 'latin1'),
      printed.subarray(printed.length - HALF),
    ]);
    // The row still says the disk cut the output off: it is the aggregate, not every byte.
    expect(row).toMatchObject({
      status: 'exited',
      exitCode: 0,
      generation: 2,
      complete: true,
      sourceIncomplete: true,
      byteLength: expected.length,
      error: cutOffOutputMessage(STORAGE_FULL_MESSAGE),
    });
    expect(row.error).toContain('the disk was full');
    expect((await readWholeOutput(client, sessionId, row)).equals(expected)).toBe(true);
  });

  it('RPC-3 chat.send on a full disk answers a storage error with data.reason "disk_full" and a clear message', async () => {
    expect(disk.fill()).toBeGreaterThanOrEqual(0);
    const sent = client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: 'echo never stored' });
    await expect(sent).rejects.toMatchObject({
      code: 'storage',
      message: DISK_FULL_MESSAGE,
      data: { code: 'storage', reason: 'disk_full' },
    });
    expect(DISK_FULL_MESSAGE).toMatch(/disk is full/);
  });

  it('RPC-3 once space is freed the runtime works again and nothing committed was lost, also after a restart', async () => {
    disk.free();
    const after = await runShell(client, sessionId, 'echo stored after space was freed');
    expect((await readWholeOutput(client, sessionId, after)).toString()).toBe('stored after space was freed\n');
    expect((await readWholeOutput(client, sessionId, before)).toString()).toBe('stored before the disk filled up\n');

    client.close();
    await runtime.stop();
    runtime = await startRuntimeProcess({ dataDir: disk.dir, projectDirs: [runtime.projectDir], port: runtime.port });
    client = await runtime.connect();
    const { rows } = await client.call('sessions.timeline', { sessionId });
    const commands = rows.filter((r): r is CommandRow => r.kind === 'command');
    expect(commands.find((r) => r.runId === before.runId)).toEqual(before);
    expect((await readWholeOutput(client, sessionId, before)).toString()).toBe('stored before the disk filled up\n');
    expect((await readWholeOutput(client, sessionId, after)).toString()).toBe('stored after space was freed\n');
    // The command that met the full disk kept what it stored.
    const cut = commands.find((r) => r.runId === fullRunId)!;
    expect(cut).toMatchObject({
      status: 'exited',
      generation: 2,
      complete: true,
      error: cutOffOutputMessage(STORAGE_FULL_MESSAGE),
    });
    expect((await readWholeOutput(client, sessionId, cut)).toString().startsWith('started\nxxxx')).toBe(true);
  });
});
