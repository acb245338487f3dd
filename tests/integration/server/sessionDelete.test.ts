import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { CommandRow } from '../../../lib/protocol/rows';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, readWholeOutput, waitForCommand } from '../../fixtures/sessionHelpers';
import { processAlive } from '../../../server/runtime/store/dataLock';
import { expectRpcError } from '../../fixtures/rpcErrors';

const processExists = processAlive;

describe('STO-4 / OUT-6 session delete', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let outputsDir: string;

  const outputFiles = () => new Set(fs.readdirSync(outputsDir).filter((f) => f.endsWith('.output')));

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    client = await runtime.connect();
    outputsDir = path.join(runtime.dataDir, 'command-outputs');
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  /** Runs a command and returns its row and the artifact file it created. */
  async function runWithFile(
    sessionId: string,
    text: string,
  ): Promise<{ row: CommandRow; file: string; operationId: string }> {
    const before = outputFiles();
    const operationId = crypto.randomUUID();
    const { runId } = await client.call('chat.send', { sessionId, operationId, text });
    const row = await waitForCommand(client, sessionId, runId);
    const added = [...outputFiles()].filter((f) => !before.has(f));
    expect(added).toHaveLength(1);
    return { row, file: added[0]!, operationId };
  }

  /** Rows that still name the session or its runs, table by table, read from the store itself. */
  function leftoverRows(sessionId: string, runIds: string[]): Record<string, number> {
    const db = new Database(path.join(runtime.dataDir, 'hbcode.db'), { readonly: true, fileMustExist: true });
    try {
      const count = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n;
      const runList = JSON.stringify(runIds);
      return {
        sessions: count('SELECT COUNT(*) AS n FROM sessions WHERE id = ?', sessionId),
        runs: count('SELECT COUNT(*) AS n FROM runs WHERE session_id = ?', sessionId),
        commands: count('SELECT COUNT(*) AS n FROM commands WHERE session_id = ?', sessionId),
        command_outputs: count(
          'SELECT COUNT(*) AS n FROM command_outputs WHERE session_id = ? OR run_id IN (SELECT value FROM json_each(?))',
          sessionId,
          runList,
        ),
        pending_appends: count(
          'SELECT COUNT(*) AS n FROM command_output_pending_appends WHERE run_id IN (SELECT value FROM json_each(?))',
          runList,
        ),
        chat_outbox: count('SELECT COUNT(*) AS n FROM chat_outbox WHERE session_id = ?', sessionId),
        operation_identity: count(
          'SELECT COUNT(*) AS n FROM chat_outbox_operation_identity WHERE session_id = ?',
          sessionId,
        ),
        idempotency_ledger: count('SELECT COUNT(*) AS n FROM remote_rpc_idempotency WHERE session_id = ?', sessionId),
      };
    } finally {
      db.close();
    }
  }

  const NOTHING_LEFT = {
    sessions: 0,
    runs: 0,
    commands: 0,
    command_outputs: 0,
    pending_appends: 0,
    chat_outbox: 0,
    operation_identity: 0,
    idempotency_ledger: 0,
  };

  it('STO-4 / OUT-6 deleting a session with finished commands removes its rows and output files and leaves other sessions readable', async () => {
    const doomed = await createShellSession(client);
    const kept = await createShellSession(client);
    const doomedRuns = [
      await runWithFile(doomed, 'printf one'),
      await runWithFile(doomed, 'seq 1 20000'),
      await runWithFile(doomed, 'printf three >&2; exit 4'),
    ];
    const keptRuns = [await runWithFile(kept, 'printf kept-one'), await runWithFile(kept, 'seq 1 5000')];
    const keptBytes = await Promise.all(keptRuns.map(({ row }) => readWholeOutput(client, kept, row)));
    for (const { file } of [...doomedRuns, ...keptRuns]) expect(fs.existsSync(path.join(outputsDir, file))).toBe(true);
    const before = outputFiles();
    const runIds = doomedRuns.map((r) => r.row.runId);
    expect(leftoverRows(doomed, runIds)).toMatchObject({
      sessions: 1,
      runs: 3,
      commands: 3,
      command_outputs: 3,
      idempotency_ledger: 3,
    });

    const changes: { sessionId: string; deleted: boolean }[] = [];
    const stop = client.onNotification('sessions.changed', (params) => changes.push(params));
    expect(await client.call('sessions.delete', { sessionId: doomed })).toEqual({});
    stop();

    // Rows: the timeline, the list, the outputs, the runs and the operations are gone.
    await expectRpcError(client.call('sessions.timeline', { sessionId: doomed }), 'not_found');
    expect((await client.call('sessions.list')).sessions.map((s) => s.id)).not.toContain(doomed);
    for (const { row, operationId } of doomedRuns) {
      await expectRpcError(
        client.call('run.chatCommandOutputRead', {
          appSessionId: doomed,
          runId: row.runId,
          commandId: row.commandId,
          generation: row.generation,
          offset: 0,
          length: 1,
        }),
        'not_found',
      );
      await expectRpcError(client.call('run.cancel', { sessionId: doomed, runId: row.runId }), 'not_found');
      await expectRpcError(
        client.call('chat.send', { sessionId: doomed, operationId, text: row.command }),
        'not_found',
      );
    }
    expect(leftoverRows(doomed, runIds)).toEqual(NOTHING_LEFT);
    expect(changes).toContainEqual({ sessionId: doomed, deleted: true });

    // Files: exactly the deleted session's three are gone.
    const after = outputFiles();
    expect(after.size).toBe(before.size - 3);
    for (const { file } of doomedRuns) expect(after.has(file)).toBe(false);
    for (const { file } of keptRuns) expect(after.has(file)).toBe(true);

    // The other session reads exactly as before.
    for (const [i, { row }] of keptRuns.entries()) {
      expect((await readWholeOutput(client, kept, row)).equals(keptBytes[i]!)).toBe(true);
    }
    expect(keptBytes[0]!.toString()).toBe('kept-one');
    expect((await client.call('sessions.timeline', { sessionId: kept })).rows).toHaveLength(4);
  });

  it('STO-4 deleting a session with a running command stops it and its queued messages, and removes its output file', async () => {
    const doomed = await createShellSession(client);
    const neighbour = await createShellSession(client);
    const pidFile = path.join(dirs.projectDirs[0]!, `pid-${doomed}.txt`);
    const queuedMarker = path.join(dirs.projectDirs[0]!, `queued-${doomed}.txt`);
    const before = outputFiles();
    const running = await client.call('chat.send', {
      sessionId: doomed,
      operationId: crypto.randomUUID(),
      text: `echo $$ > ${pidFile}; while true; do echo tick; sleep 0.05; done`,
    });
    const queued = await client.call('chat.send', {
      sessionId: doomed,
      operationId: crypto.randomUUID(),
      text: `echo ran > ${queuedMarker}`,
    });
    await waitForCommand(
      client,
      doomed,
      running.runId,
      (r) => r.status === 'running' && r.byteLength >= 'tick\n'.length * 3,
    );
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(processExists(pid)).toBe(true);
    const doomedFiles = [...outputFiles()].filter((f) => !before.has(f));
    expect(doomedFiles).toHaveLength(1);

    // A neighbour's command running at the same time must not be disturbed.
    const neighbourRun = await client.call('chat.send', {
      sessionId: neighbour,
      operationId: crypto.randomUUID(),
      text: 'for i in $(seq 1 20); do echo n$i; sleep 0.05; done',
    });
    await waitForCommand(client, neighbour, neighbourRun.runId, (r) => r.status === 'running' && r.byteLength > 0);
    const neighbourFiles = [...outputFiles()].filter((f) => !before.has(f) && !doomedFiles.includes(f));
    expect(neighbourFiles).toHaveLength(1);

    expect(await client.call('sessions.delete', { sessionId: doomed })).toEqual({});

    expect(processExists(pid)).toBe(false);
    await expectRpcError(client.call('sessions.timeline', { sessionId: doomed }), 'not_found');
    expect(leftoverRows(doomed, [running.runId, queued.runId])).toEqual(NOTHING_LEFT);
    expect([...outputFiles()].filter((f) => !before.has(f))).toEqual(neighbourFiles);
    await new Promise((r) => setTimeout(r, 500));
    expect(fs.existsSync(queuedMarker)).toBe(false);

    const neighbourRow = await waitForCommand(client, neighbour, neighbourRun.runId);
    expect(neighbourRow).toMatchObject({ status: 'exited', exitCode: 0, complete: true });
    const text = (await readWholeOutput(client, neighbour, neighbourRow)).toString();
    expect(text).toBe(Array.from({ length: 20 }, (_, i) => `n${i + 1}\n`).join(''));
  });

  it("STO-4 a deleted session's leftover rows do not come back after a restart", async () => {
    const doomed = await createShellSession(client);
    const { row } = await runWithFile(doomed, 'printf gone');
    await client.call('sessions.delete', { sessionId: doomed });
    client.close();
    expect(await runtime.stop()).toBe(0);
    runtime = await runtime.restart();
    client = await runtime.connect();
    await expectRpcError(client.call('sessions.timeline', { sessionId: doomed }), 'not_found');
    expect(leftoverRows(doomed, [row.runId])).toEqual(NOTHING_LEFT);
    expect((await client.call('sessions.list')).sessions.map((s) => s.id)).not.toContain(doomed);
  });
});
