import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { omittedMarker } from '../../../server/runtime/output/aggregate';
import { cutOffOutputMessage, STORAGE_FAILED_MESSAGE } from '../../../server/runtime/output/recoverArtifact';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, readWholeOutput, runShell } from '../../fixtures/sessionHelpers';

const LIMIT_KIB = 8 * 1024;
const HALF = 512 * 1024;

describe('a device that cannot store output', () => {
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let sessionId: string;

  beforeAll(async () => {
    // A real storage failure: the kernel refuses to grow any file past 8 MiB (EFBIG).
    runtime = await startRuntimeProcess({
      wrap: (cmd) => ['bash', '-c', `ulimit -f ${LIMIT_KIB}; exec "$@"`, 'bash', ...cmd],
    });
    client = await runtime.connect();
    sessionId = await createShellSession(client);
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
  });

  it('OUT-3 a failed append drops later deltas and the head/tail aggregate becomes generation 2 with sourceIncomplete', async () => {
    const printed = crypto.randomBytes(12 * 1024 * 1024);
    fs.writeFileSync(path.join(runtime.projectDir, 'big.bin'), printed.subarray(0, 4 * 1024 * 1024));
    const errorsSeen: (string | undefined)[] = [];
    const stop = client.onNotification('timeline.row', (params) => {
      if (params.row.kind === 'command') errorsSeen.push(params.row.error);
    });
    // The project file stays under the limit; the command prints it three times (12 MiB).
    const row = await runShell(client, sessionId, 'cat big.bin big.bin big.bin; sleep 0.5');
    stop();
    // While the command ran, its row said why its output was unavailable.
    expect(errorsSeen).toContain(STORAGE_FAILED_MESSAGE);
    const expected = Buffer.concat([
      printed.subarray(0, HALF),
      Buffer.from(omittedMarker(12 * 1024 * 1024 - 2 * HALF), 'latin1'),
      printed.subarray(4 * 1024 * 1024 - HALF, 4 * 1024 * 1024),
    ]);
    expect(row).toMatchObject({
      status: 'exited',
      exitCode: 0,
      generation: 2,
      complete: true,
      sourceIncomplete: true,
      byteLength: expected.length,
    });
    // The aggregate is its head and tail: the row still says the device could not store the rest.
    expect(row.error).toBe(cutOffOutputMessage(STORAGE_FAILED_MESSAGE));
    expect((await readWholeOutput(client, sessionId, row)).equals(expected)).toBe(true);
    await expect(
      client.call('run.chatCommandOutputRead', {
        appSessionId: sessionId,
        runId: row.runId,
        commandId: row.commandId,
        generation: 1,
        offset: 0,
        length: 10,
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
    expect(runtime.output()).toContain('command output append failed');
  });

  it('OUT-3 the runtime stays up and later commands store their output', async () => {
    const row = await runShell(client, sessionId, 'echo still here');
    expect(row).toMatchObject({ status: 'exited', generation: 1, sourceIncomplete: false });
    expect((await readWholeOutput(client, sessionId, row)).toString()).toBe('still here\n');
  });
});
