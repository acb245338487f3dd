import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, readWholeOutput, runShell, waitForCommand } from '../../fixtures/sessionHelpers';
import { seededRandom } from '../../fixtures/seededRandom';

/** Where each line holding `needle` starts, in the bytes as stored (no escapes in this output). */
function lineStartsWith(bytes: Buffer, needle: string): { offset: number; column: number }[] {
  const places: { offset: number; column: number }[] = [];
  let lineStart = 0;
  for (const line of bytes.toString('latin1').split('\n')) {
    for (let at = line.indexOf(needle); at !== -1; at = line.indexOf(needle, at + 1))
      places.push({ offset: lineStart, column: at });
    lineStart += line.length + 1;
  }
  return places;
}

describe('find in a command output on the desktop (PWA-2)', () => {
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

  it('PWA-2 answers every place of a line in 6 MiB, at the stored bytes of its row', async () => {
    const random = seededRandom(22);
    const lines: string[] = [];
    for (let i = 0, size = 0; size < 6 * 1024 * 1024; i++) {
      lines.push(`line ${i} ${random() < 0.0005 ? 'the Needle is here' : 'hay'.repeat(1 + Math.floor(random() * 40))}`);
      size += lines[i]!.length + 1;
    }
    fs.writeFileSync(path.join(runtime.projectDir, 'haystack.txt'), lines.join('\n') + '\n');
    const row = await runShell(client, sessionId, 'cat haystack.txt');
    const stored = await readWholeOutput(client, sessionId, row);
    const expected = lineStartsWith(stored, 'the Needle');
    expect(expected.length).toBeGreaterThan(5);
    const answer = await client.call('run.chatCommandOutputFind', {
      appSessionId: sessionId,
      runId: row.runId,
      commandId: row.commandId,
      generation: row.generation,
      query: 'THE needle',
    });
    expect(answer).toMatchObject({ complete: true, searchedBytes: stored.length, generation: row.generation });
    expect(answer.matches).toEqual(expected);
    for (const match of answer.matches)
      expect(stored.subarray(match.offset + match.column, match.offset + match.column + 10).toString()).toBe(
        'the Needle',
      );
  });

  it('PWA-2 refuses a replaced generation, an empty query and another session, with clear errors', async () => {
    const row = await runShell(client, sessionId, 'echo one two');
    const base = {
      appSessionId: sessionId,
      runId: row.runId,
      commandId: row.commandId,
      generation: row.generation,
      query: 'two',
    };
    expect((await client.call('run.chatCommandOutputFind', base)).matches).toEqual([{ offset: 0, column: 4 }]);
    await expect(
      client.call('run.chatCommandOutputFind', { ...base, generation: row.generation + 1 }),
    ).rejects.toMatchObject({ code: 'conflict' });
    await expect(client.call('run.chatCommandOutputFind', { ...base, query: '' })).rejects.toMatchObject({
      code: 'invalid_params',
    });
    await expect(client.call('run.chatCommandOutputFind', { ...base, query: 'x'.repeat(257) })).rejects.toMatchObject({
      code: 'invalid_params',
    });
    const other = await createShellSession(client);
    await expect(client.call('run.chatCommandOutputFind', { ...base, appSessionId: other })).rejects.toMatchObject({
      code: 'conflict',
    });
  });

  it('PWA-2 searches a running command up to the bytes it had printed, and again later', async () => {
    const { runId } = await client.call('chat.send', {
      sessionId,
      operationId: crypto.randomUUID(),
      text: 'echo mark-1; sleep 0.3; echo mark-2; sleep 30',
    });
    const first = await waitForCommand(client, sessionId, runId, (r) => r.byteLength >= 'mark-1\n'.length);
    const early = await client.call('run.chatCommandOutputFind', {
      appSessionId: sessionId,
      runId,
      commandId: first.commandId,
      generation: first.generation,
      query: 'mark-',
    });
    expect(early.searchedBytes).toBeGreaterThanOrEqual(7);
    expect(early.matches.length).toBe(early.searchedBytes >= 14 ? 2 : 1);
    const later = await waitForCommand(client, sessionId, runId, (r) => r.byteLength >= 14);
    const again = await client.call('run.chatCommandOutputFind', {
      appSessionId: sessionId,
      runId,
      commandId: later.commandId,
      generation: later.generation,
      query: 'mark-',
    });
    expect(again.matches).toEqual([
      { offset: 0, column: 0 },
      { offset: 7, column: 0 },
    ]);
    await client.call('run.cancel', { sessionId, runId });
  });

  it('PWA-2 is bounded in matches, and a search its device cancels answers with what it found', async () => {
    // 40 MiB of matching lines: long enough that the cancel lands while it runs.
    fs.writeFileSync(path.join(runtime.projectDir, 'many.txt'), 'zz\n'.repeat(14 * 1024 * 1024));
    const row = await runShell(client, sessionId, 'cat many.txt');
    const base = {
      appSessionId: sessionId,
      runId: row.runId,
      commandId: row.commandId,
      generation: row.generation,
      query: 'zz',
    };
    const whole = await client.call('run.chatCommandOutputFind', base);
    // Bounded: the answer stops at its match limit and says so.
    expect(whole.complete).toBe(false);
    expect(whole.matches.length).toBe(10_000);
    expect(whole.matches[9_999]).toEqual({ offset: 9_999 * 3, column: 0 });

    const searchId = crypto.randomUUID();
    const pending = client.call('run.chatCommandOutputFind', { ...base, query: 'no such text', searchId });
    await client.call('run.chatCommandOutputFindCancel', { searchId });
    const cancelled = await pending;
    expect(cancelled.complete).toBe(false);
    expect(cancelled.matches).toEqual([]);
  });
});
