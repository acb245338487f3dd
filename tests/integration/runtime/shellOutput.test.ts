import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, readWholeOutput, runShell, waitForCommand } from '../../fixtures/sessionHelpers';

describe('shell agent output through the protocol', () => {
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let sessionId: string;

  beforeAll(async () => {
    runtime = await startRuntimeProcess();
    client = await runtime.connect();
    sessionId = await createShellSession(client);
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
  });

  it('OUT-8 a command that prints 50 MiB reads back byte-identical in 256 KiB ranges', async () => {
    const source = path.join(runtime.projectDir, 'big.bin');
    fs.writeFileSync(source, crypto.randomBytes(50 * 1024 * 1024));
    const row = await runShell(client, sessionId, 'cat big.bin');
    expect(row).toMatchObject({
      status: 'exited',
      exitCode: 0,
      byteLength: 50 * 1024 * 1024,
      generation: 1,
      complete: true,
      sourceIncomplete: false,
    });
    const bytes = await readWholeOutput(client, sessionId, row);
    expect(bytes.equals(fs.readFileSync(source))).toBe(true);
    // The same ranges as raw binary frames (transfer: "binary"), in pages that do not divide the size.
    const binary = await readWholeOutput(client, sessionId, row, 200_000, 'binary');
    expect(binary.equals(bytes)).toBe(true);
  });

  it('OUT-5 a binary read of a missing generation is an ordinary conflict error', async () => {
    const row = await runShell(client, sessionId, 'echo binary');
    await expect(
      client.callBinary('run.chatCommandOutputRead', {
        appSessionId: sessionId,
        runId: row.runId,
        commandId: row.commandId,
        generation: row.generation + 1,
        offset: 0,
        length: 16,
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
    const { result, data } = await client.callBinary('run.chatCommandOutputRead', {
      appSessionId: sessionId,
      runId: row.runId,
      commandId: row.commandId,
      generation: row.generation,
      offset: 2,
      length: 16,
    });
    expect(result).toMatchObject({ offset: 2, byteCount: 5, availableBytes: 7, dataBase64: '' });
    expect(Buffer.from(data).toString()).toBe('nary\n');
  });

  it('OUT-1 a command that prints nothing has a complete 0-byte output', async () => {
    const row = await runShell(client, sessionId, 'true');
    expect(row).toMatchObject({
      status: 'exited',
      exitCode: 0,
      byteLength: 0,
      complete: true,
      sourceIncomplete: false,
    });
    const page = await client.call('run.chatCommandOutputRead', {
      appSessionId: sessionId,
      runId: row.runId,
      commandId: row.commandId,
      generation: row.generation,
      offset: 0,
      length: 1,
    });
    expect(page).toMatchObject({ byteCount: 0, availableBytes: 0, dataBase64: '' });
  });

  it('OUT-8 non-UTF-8 binary output and stderr are kept byte for byte, with the exit code', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    fs.writeFileSync(path.join(runtime.projectDir, 'all-bytes.bin'), bytes);
    const row = await runShell(client, sessionId, 'cat all-bytes.bin; cat all-bytes.bin >&2; exit 3');
    expect(row).toMatchObject({ status: 'exited', exitCode: 3, byteLength: 512, complete: true });
    expect((await readWholeOutput(client, sessionId, row)).equals(Buffer.concat([bytes, bytes]))).toBe(true);
  });

  it('SES-5 a command that runs until cancelled stops with its children and keeps what it printed', async () => {
    const { runId } = await client.call('chat.send', {
      sessionId,
      operationId: crypto.randomUUID(),
      text: 'echo started; (sleep 300; echo child-survived) & while true; do echo tick; sleep 0.05; done',
    });
    const running = await waitForCommand(client, sessionId, runId, (r) => r.status === 'running' && r.byteLength > 20);
    expect(running.complete).toBe(false);
    await client.call('run.cancel', { sessionId, runId });
    const row = await waitForCommand(client, sessionId, runId);
    expect(row.status).toBe('cancelled');
    expect(row.complete).toBe(true);
    const text = (await readWholeOutput(client, sessionId, row)).toString();
    expect(text.startsWith('started\ntick\n')).toBe(true);
    expect(text).not.toContain('child-survived');
    const { rows } = await client.call('sessions.timeline', { sessionId });
    expect(rows.find((r) => r.kind === 'message' && r.runId === runId)).toMatchObject({ state: 'cancelled' });
  });
});
