import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { CommandRow } from '../../../lib/protocol/rows';
import { INTERRUPTED_MESSAGE } from '../../../server/runtime/sessions/commandRecorder';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, isCommandRow, readWholeOutput, waitForCommand } from '../../fixtures/sessionHelpers';
import { makeTempDir } from '../../fixtures/tempDir';

/**
 * OUT-2 through the whole runtime: the real runtime process streams a shell command's output
 * into its artifact, dies by SIGKILL mid-stream, and starts again on the same data folder. Its
 * start-up sweep has to leave exactly a prefix of what the command printed.
 */

const MiB = 1024 * 1024;

/** What `seq FIRST STEP LAST` prints, cut at `length` bytes. */
function seqPrefix(first: number, step: number, length: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  let filled = 0;
  for (let n = first; filled < length;) {
    let lines = '';
    for (let k = 0; k < 10_000; k++, n += step) lines += `${n}\n`;
    filled += Buffer.from(lines).copy(out, filled);
  }
  return out;
}

function describePrefixMismatch(actual: Buffer, expected: Buffer): string | null {
  if (actual.length !== expected.length) return `read ${actual.length} bytes, the row says ${expected.length}`;
  if (actual.equals(expected)) return null;
  let at = 0;
  while (actual[at] === expected[at]) at++;
  return `byte ${at} differs: ${JSON.stringify(actual.subarray(Math.max(0, at - 20), at + 20).toString())}`;
}

const running: RuntimeProcess[] = [];
const clients: RpcClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const runtime of running.splice(0)) await runtime.kill();
});

async function start(dataDir: string, projectDir: string): Promise<{ runtime: RuntimeProcess; client: RpcClient }> {
  const runtime = await startRuntimeProcess({ dataDir, projectDirs: [projectDir] });
  running.push(runtime);
  const client = await runtime.connect();
  clients.push(client);
  return { runtime, client };
}

/** Starts a command, waits until it has committed more than `minBytes`, then SIGKILLs the runtime. */
async function killDuringCommand(
  runtime: RuntimeProcess,
  client: RpcClient,
  sessionId: string,
  text: string,
  minBytes: number,
): Promise<CommandRow> {
  const { runId } = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text });
  const live = await waitForCommand(client, sessionId, runId, (r) => r.status === 'running' && r.byteLength > minBytes);
  expect(live.complete).toBe(false);
  // A little later than the row said, so the kill lands anywhere in the append cycle.
  await new Promise((resolve) => setTimeout(resolve, crypto.randomInt(100)));
  await runtime.kill();
  const { signal } = await runtime.exited;
  expect(signal).toBe('SIGKILL');
  console.log(`killed during "${text}": ${inspectKillState(runtime.dataDir, runId)}`);
  return live;
}

/** After the restart: the row failed and complete, the committed bytes an exact prefix of the command's output. */
async function expectInterruptedPrefix(
  client: RpcClient,
  sessionId: string,
  live: CommandRow,
  first: number,
  step: number,
): Promise<Buffer> {
  const { rows } = await client.call('sessions.timeline', { sessionId });
  const row = rows.filter(isCommandRow).find((r) => r.runId === live.runId)!;
  expect(row).toMatchObject({
    status: 'failed',
    complete: true,
    sourceIncomplete: true,
    generation: 1,
    error: INTERRUPTED_MESSAGE,
  });
  // What a client saw committed before the kill is never lost.
  expect(row.byteLength).toBeGreaterThanOrEqual(live.byteLength);
  expect(rows.find((r) => r.kind === 'message' && r.runId === live.runId)).toMatchObject({ state: 'failed' });
  const bytes = await readWholeOutput(client, sessionId, row);
  expect(describePrefixMismatch(bytes, seqPrefix(first, step, row.byteLength))).toBeNull();
  return bytes;
}

/**
 * What the kill left behind, before any recovery: never fewer bytes than the catalog commits,
 * at most one append in flight. Returns a description for the log.
 */
function inspectKillState(dataDir: string, runId: string): string {
  const db = new Database(path.join(dataDir, 'hbcode.db'), { fileMustExist: true });
  try {
    const row = db.prepare('SELECT file_name, byte_length FROM command_outputs WHERE run_id = ?').get(runId) as {
      file_name: string;
      byte_length: number;
    };
    const pending = db
      .prepare('SELECT expected_offset, length FROM command_output_pending_appends WHERE run_id = ?')
      .all(runId) as { expected_offset: number; length: number }[];
    const size = fs.statSync(path.join(dataDir, 'command-outputs', row.file_name)).size;
    expect(size).toBeGreaterThanOrEqual(row.byte_length);
    expect(pending.length).toBeLessThanOrEqual(1);
    if (pending[0]) {
      expect(pending[0].expected_offset).toBe(row.byte_length);
      expect(size).toBeLessThanOrEqual(row.byte_length + pending[0].length);
    } else {
      expect(size).toBe(row.byte_length);
    }
    return `catalog ${row.byte_length} B, file ${size} B, pending ${JSON.stringify(pending)}`;
  } finally {
    db.close();
  }
}

/** The recovery at start-up left no pending append, and every artifact file is exactly as long as its row. */
function expectCatalogSettled(dataDir: string): void {
  const db = new Database(path.join(dataDir, 'hbcode.db'), { readonly: true, fileMustExist: true });
  try {
    expect(db.prepare('SELECT COUNT(*) AS n FROM command_output_pending_appends').get()).toEqual({ n: 0 });
    const rows = db.prepare('SELECT file_name, byte_length FROM command_outputs').all() as {
      file_name: string;
      byte_length: number;
    }[];
    for (const row of rows)
      expect(fs.statSync(path.join(dataDir, 'command-outputs', row.file_name)).size).toBe(row.byte_length);
  } finally {
    db.close();
  }
}

describe('OUT-2 the runtime killed by SIGKILL while a command streams', () => {
  it(
    'OUT-2 after each restart the committed output is an exact prefix of what the command printed, and earlier outputs are untouched',
    { timeout: 120_000 },
    async () => {
      const dataDir = makeTempDir('hbcode-data-');
      const projectDir = makeTempDir('hbcode-project-');

      let { runtime, client } = await start(dataDir, projectDir);
      const sessionId = await createShellSession(client);
      const firstLive = await killDuringCommand(runtime, client, sessionId, 'seq 1 100000000', 4 * MiB);

      ({ runtime, client } = await start(dataDir, projectDir));
      expectCatalogSettled(dataDir);
      const firstOutput = await expectInterruptedPrefix(client, sessionId, firstLive, 1, 1);

      // Again, with another command, on the runtime that recovered the first one.
      const secondLive = await killDuringCommand(runtime, client, sessionId, 'seq 7 3 900000000', 2 * MiB);

      ({ runtime, client } = await start(dataDir, projectDir));
      expectCatalogSettled(dataDir);
      await expectInterruptedPrefix(client, sessionId, secondLive, 7, 3);
      const { rows } = await client.call('sessions.timeline', { sessionId });
      const firstRow = rows.filter(isCommandRow).find((r) => r.runId === firstLive.runId)!;
      expect(firstRow.byteLength).toBe(firstOutput.length);
      expect((await readWholeOutput(client, sessionId, firstRow)).equals(firstOutput)).toBe(true);
    },
  );
});
