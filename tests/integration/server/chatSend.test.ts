import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { TimelineRow } from '../../../lib/protocol/rows';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, isCommandRow, readWholeOutput, waitForCommand } from '../../fixtures/sessionHelpers';
import { expectRpcError } from '../../fixtures/rpcErrors';

const rowsOfOperation = (rows: TimelineRow[], operationId: string) => {
  const messages = rows.filter((r) => r.kind === 'message' && r.operationId === operationId);
  const runIds = new Set(messages.map((m) => m.runId));
  return { messages, commands: rows.filter(isCommandRow).filter((c) => runIds.has(c.runId)) };
};

describe('STO-2 / STO-3 chat.send is exactly-once across retries and restarts', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let sessionId: string;
  const operationId = crypto.randomUUID();
  const text = 'echo delivered-once >> marker.txt; echo sent';
  let firstAnswer: { operationId: string; runId: string; state: string };

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    client = await runtime.connect();
    sessionId = await createShellSession(client);
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  async function restart(): Promise<void> {
    client.close();
    expect(await runtime.stop()).toBe(0);
    runtime = await runtime.restart();
    client = await runtime.connect();
  }

  /** The operation has exactly one message row and one command row, and the command ran once. */
  async function expectDeliveredOnce(): Promise<void> {
    const { rows } = await client.call('sessions.timeline', { sessionId });
    const { messages, commands } = rowsOfOperation(rows, operationId);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ runId: firstAnswer.runId, text, state: 'done' });
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatchObject({ status: 'exited', exitCode: 0 });
    expect((await readWholeOutput(client, sessionId, commands[0]!)).toString()).toBe('sent\n');
    expect(fs.readFileSync(path.join(dirs.projectDirs[0]!, 'marker.txt'), 'utf8')).toBe('delivered-once\n');
  }

  it('STO-2 a retry with the same operation id and text returns the identical first answer and creates one message and one command', async () => {
    firstAnswer = await client.call('chat.send', { sessionId, operationId, text });
    expect(firstAnswer).toEqual({
      operationId,
      runId: expect.any(String),
      state: expect.stringMatching(/^(queued|running)$/),
    });
    // A retry while the command may still run, another after it ran, and several at once.
    expect(await client.call('chat.send', { sessionId, operationId, text })).toEqual(firstAnswer);
    await waitForCommand(client, sessionId, firstAnswer.runId);
    expect(await client.call('chat.send', { sessionId, operationId, text })).toEqual(firstAnswer);
    const concurrent = await Promise.all(
      Array.from({ length: 5 }, () => client.call('chat.send', { sessionId, operationId, text })),
    );
    for (const answer of concurrent) expect(answer).toEqual(firstAnswer);
    await new Promise((r) => setTimeout(r, 300));
    await expectDeliveredOnce();
  });

  it('STO-2 racing first sends of one new operation from two connections create a single run', async () => {
    const other = await runtime.connect();
    const raceId = crypto.randomUUID();
    const answers = await Promise.all([
      client.call('chat.send', { sessionId, operationId: raceId, text: 'echo race' }),
      other.call('chat.send', { sessionId, operationId: raceId, text: 'echo race' }),
      client.call('chat.send', { sessionId, operationId: raceId, text: 'echo race' }),
      other.call('chat.send', { sessionId, operationId: raceId, text: 'echo race' }),
    ]);
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    await waitForCommand(client, sessionId, answers[0]!.runId);
    const { rows } = await client.call('sessions.timeline', { sessionId });
    const { messages, commands } = rowsOfOperation(rows, raceId);
    expect(messages).toHaveLength(1);
    expect(commands).toHaveLength(1);
    other.close();
  });

  it('STO-2 the same operation id with another text is a conflict and changes nothing', async () => {
    await expectRpcError(client.call('chat.send', { sessionId, operationId, text: 'echo something else' }), 'conflict');
    await expectRpcError(client.call('chat.send', { sessionId, operationId, text: text + ' ' }), 'conflict');
    // The original is still answered as before after the conflicting attempts.
    expect(await client.call('chat.send', { sessionId, operationId, text })).toEqual(firstAnswer);
    await expectDeliveredOnce();
  });

  it('STO-2 an operation id is scoped to its session: another session may use it for its own message', async () => {
    const otherSession = await createShellSession(client);
    const answer = await client.call('chat.send', { sessionId: otherSession, operationId, text: 'echo other session' });
    expect(answer.runId).not.toBe(firstAnswer.runId);
    const row = await waitForCommand(client, otherSession, answer.runId);
    expect((await readWholeOutput(client, otherSession, row)).toString()).toBe('other session\n');
  });

  it('STO-3 after a restart on the same data folder, the retry returns the identical first answer and nothing runs again', async () => {
    await restart();
    expect(await client.call('chat.send', { sessionId, operationId, text })).toEqual(firstAnswer);
    await new Promise((r) => setTimeout(r, 500));
    await expectDeliveredOnce();
  });

  it('STO-3 after a restart, the same operation id with another text is still a conflict', async () => {
    await expectRpcError(client.call('chat.send', { sessionId, operationId, text: 'echo something else' }), 'conflict');
    expect(await client.call('chat.send', { sessionId, operationId, text })).toEqual(firstAnswer);
    await expectDeliveredOnce();
  });

  it('STO-3 an operation sent after one restart and retried after another still answers identically', async () => {
    const laterId = crypto.randomUUID();
    const first = await client.call('chat.send', { sessionId, operationId: laterId, text: 'echo later' });
    await waitForCommand(client, sessionId, first.runId);
    await restart();
    expect(await client.call('chat.send', { sessionId, operationId: laterId, text: 'echo later' })).toEqual(first);
    await expectRpcError(
      client.call('chat.send', { sessionId, operationId: laterId, text: 'echo not later' }),
      'conflict',
    );
    const { rows } = await client.call('sessions.timeline', { sessionId });
    expect(rowsOfOperation(rows, laterId).commands).toHaveLength(1);
  });
});
