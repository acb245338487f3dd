import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import type { CodexCall } from '../../../../../server/runtime/agents/codex/codexHistory';
import { readSavedCommandOutput, savedOutputOfItem } from '../../../../../server/runtime/agents/codex/codexSavedOutput';
import { SAVED_COPY_CAP_BYTES } from '../../../../../server/runtime/output/agentCopy';

const where = { threadId: 'thread-1', turnId: 'turn-1', itemId: 'call-1' };
const commandItem = (status: string, aggregatedOutput: string | null) => ({
  type: 'commandExecution',
  id: 'call-1',
  command: 'cat x',
  status,
  aggregatedOutput,
  exitCode: 0,
});

/** A Codex that answers each `thread/items/read` from `answers` in turn, recording what it was asked. */
function fakeCodex(answers: unknown[][]): { call: CodexCall; asked: unknown[] } {
  const asked: unknown[] = [];
  const call = (async <T extends z.ZodTypeAny>(method: string, params: unknown, schema: T) => {
    expect(method).toBe('thread/items/read');
    asked.push(params);
    return schema.parse({ data: (answers.shift() ?? []).map((item) => ({ turnId: 'turn-1', item })) }) as z.output<T>;
  }) as CodexCall;
  return { call, asked };
}

describe('readSavedCommandOutput: what Codex saved of one command (OUT-4)', () => {
  it('OUT-4 asks thread/items/read for the one item and returns its saved output as UTF-8 bytes', async () => {
    const codex = fakeCodex([[commandItem('completed', 'héllo\n')]]);
    const bytes = await readSavedCommandOutput(codex.call, where, new Promise(() => undefined));
    expect(bytes?.equals(Buffer.from('héllo\n', 'utf8'))).toBe(true);
    expect(codex.asked).toEqual([{ threadId: 'thread-1', turnId: 'turn-1', itemIds: ['call-1'] }]);
  });

  it('OUT-4 an item not saved yet (absent or still in progress) is asked for once more after the turn ended', async () => {
    let endTurn!: () => void;
    const ended = new Promise<void>((resolve) => (endTurn = resolve));
    const codex = fakeCodex([[commandItem('inProgress', 'par')], [commandItem('failed', 'partial, then failed\n')]]);
    const reading = readSavedCommandOutput(codex.call, where, ended);
    await new Promise((resolve) => setImmediate(resolve));
    expect(codex.asked).toHaveLength(1);
    endTurn();
    expect((await reading)?.toString()).toBe('partial, then failed\n');
    expect(codex.asked).toHaveLength(2);
    expect(await readSavedCommandOutput(fakeCodex([[], []]).call, where, Promise.resolve())).toBeNull();
  });

  it('OUT-4 no saved output, or one over the 16 MiB cap, is no copy', async () => {
    expect(
      await readSavedCommandOutput(fakeCodex([[commandItem('completed', null)]]).call, where, Promise.resolve()),
    ).toBeNull();
    const huge = 'x'.repeat(SAVED_COPY_CAP_BYTES + 1);
    expect(
      await readSavedCommandOutput(fakeCodex([[commandItem('completed', huge)]]).call, where, Promise.resolve()),
    ).toBeNull();
    // Under the cap in UTF-16 units, over it in UTF-8 bytes.
    const wide = 'é'.repeat(SAVED_COPY_CAP_BYTES / 2 + 1);
    expect(savedOutputOfItem(commandItem('completed', wide))).toBeNull();
    expect(savedOutputOfItem(commandItem('completed', 'é'.repeat(10)))?.length).toBe(20);
  });

  it('OUT-4 a Codex that never answers is given up after the timeout (the time is a parameter)', async () => {
    const silent = (() => new Promise(() => undefined)) as CodexCall;
    await expect(readSavedCommandOutput(silent, where, Promise.resolve(), 20)).rejects.toThrow(
      /did not answer thread\/items\/read/,
    );
  });

  it('OUT-4 a saved item that is not a command gives no copy', () => {
    expect(savedOutputOfItem({ type: 'agentMessage', id: 'call-1', text: 'hello' })).toBeNull();
  });
});
