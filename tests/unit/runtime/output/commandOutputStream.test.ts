import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HeadTailAggregate } from '../../../../server/runtime/output/aggregate';
import type { OutputState } from '../../../../server/runtime/output/commandOutputStore';
import type { OutputKey } from '../../../../server/runtime/output/catalog';
import { CommandOutputStream } from '../../../../server/runtime/output/commandOutputStream';
import { cutOffOutputMessage, STORAGE_FULL_MESSAGE } from '../../../../server/runtime/output/recoverArtifact';
import { openOutputStore, patternBytes } from '../../../fixtures/outputStoreFixture';

const KiB = 1024;
const MiB = 1024 * KiB;
const HIGH_WATER = 8 * MiB;
const key: OutputKey = { runId: 'run-1', commandId: 'cmd-1' };

/** Fails fast instead of hanging to the test timeout when a promise never settles. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function setup() {
  const fx = openOutputStore();
  fx.store.create(key, fx.sessionId);
  const commits: OutputState[] = [];
  const stream = new CommandOutputStream(fx.store, key, (state) => commits.push(state));
  return { fx, stream, commits };
}

/** Splits `bytes` into deltas of irregular sizes (1 to `max` bytes), with a few empty ones. */
function irregularDeltas(bytes: Buffer, max: number): Buffer[] {
  const deltas: Buffer[] = [];
  let x = 7;
  for (let at = 0; at < bytes.length;) {
    x = (x * 1103515245 + 12345) >>> 0;
    const n = deltas.length % 50 === 49 ? 0 : 1 + ((x >>> 8) % max);
    deltas.push(bytes.subarray(at, at + n));
    at += n;
  }
  return deltas;
}

describe('CommandOutputStream (OUT-2 group commit, OUT-4 ledger)', () => {
  it('OUT-2 many small deltas end up byte-identical on disk, in order', async () => {
    const { fx, stream, commits } = setup();
    const output = patternBytes(400_000, 12);
    const deltas = irregularDeltas(output, 300);
    // Half pushed in one go, half spread over event-loop turns, so batches form both ways.
    deltas.forEach((delta, i) => {
      if (i < deltas.length / 2) expect(stream.push(delta)).toBe(true);
    });
    for (const delta of deltas.slice(Math.ceil(deltas.length / 2))) {
      stream.push(delta);
      if (delta.length % 5 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await stream.flush();
    expect(fs.readFileSync(fx.fileOf(key)).equals(output)).toBe(true);
    expect(fx.store.state(key)!.byteLength).toBe(output.length);
    expect(fx.pendingCount()).toBe(0);
    expect(commits.at(-1)!.byteLength).toBe(output.length);
  });

  it('OUT-4 the ledger counts every byte and every delta, empty ones included', async () => {
    const { stream } = setup();
    const output = patternBytes(50_000, 3);
    const deltas = irregularDeltas(output, 1000);
    expect(deltas.some((d) => d.length === 0)).toBe(true);
    for (const delta of deltas) stream.push(delta);
    expect(stream.ledger).toEqual({ bytes: output.length, deltas: deltas.length });
    await stream.flush();
    expect(stream.ledger).toEqual({ bytes: output.length, deltas: deltas.length });
  });

  it('OUT-2 deltas that queue up share appends; each commit is reported with a growing length', async () => {
    const { fx, stream, commits } = setup();
    const output = patternBytes(3 * MiB, 4);
    const deltaSize = 4 * KiB;
    let deltas = 0;
    for (let at = 0; at < output.length; at += deltaSize, deltas++) stream.push(output.subarray(at, at + deltaSize));
    await stream.flush();
    expect(fs.readFileSync(fx.fileOf(key)).equals(output)).toBe(true);
    expect(commits.length).toBeGreaterThan(0);
    expect(commits.length).toBeLessThan(deltas);
    let previous = 0;
    for (const state of commits) {
      const grew = state.byteLength - previous;
      expect(grew).toBeGreaterThan(0);
      expect(grew % deltaSize).toBe(0); // whole deltas only, never a split one
      expect(grew).toBeLessThanOrEqual(MiB); // one write-ahead record is at most 1 MiB
      previous = state.byteLength;
    }
    expect(previous).toBe(output.length);
  });

  it('OUT-8 a single delta larger than an append batch is stored whole', async () => {
    const { fx, stream, commits } = setup();
    const big = patternBytes(2 * MiB + 3, 5);
    stream.push(Buffer.from('a'));
    stream.push(big);
    stream.push(Buffer.from('z'));
    await stream.flush();
    expect(fs.readFileSync(fx.fileOf(key)).equals(Buffer.concat([Buffer.from('a'), big, Buffer.from('z')]))).toBe(true);
    expect(commits.at(-1)!.byteLength).toBe(big.length + 2);
  });

  // A plain `await` on the commit notice, as a producer writes it; a lost delta hangs it until the timeout.
  it('OUT-2 a producer that waits for each commit before pushing more loses nothing', { timeout: 10_000 }, async () => {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    let notify: () => void = () => {};
    const stream = new CommandOutputStream(fx.store, key, () => notify());
    const parts = [Buffer.from('one\n'), patternBytes(100 * KiB, 2), Buffer.from('three\n'), Buffer.from('four\n')];
    for (const part of parts) {
      const committed = new Promise<void>((resolve) => {
        notify = resolve;
      });
      stream.push(part);
      await committed;
    }
    const state = await within(stream.finish(null), 5000, 'finish');
    expect(fs.readFileSync(fx.fileOf(key)).equals(Buffer.concat(parts))).toBe(true);
    expect(state.byteLength).toBe(Buffer.concat(parts).length);
  });

  it('OUT-2 a delta pushed from the commit callback is stored too', async () => {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    const late = Buffer.from('late\n');
    let sent = false;
    const stream: CommandOutputStream = new CommandOutputStream(fx.store, key, () => {
      if (sent) return;
      sent = true;
      queueMicrotask(() => stream.push(late));
    });
    stream.push(Buffer.from('early\n'));
    await within(stream.flush(), 5000, 'flush');
    expect(sent).toBe(true);
    expect(fs.readFileSync(fx.fileOf(key)).toString()).toBe('early\nlate\n');
  });
});

describe('CommandOutputStream.finish (OUT-4)', () => {
  it('OUT-4 finish flushes, then settles: a proven stream stays generation 1 with sourceIncomplete false', async () => {
    const { fx, stream } = setup();
    const output = patternBytes(3 * MiB, 8);
    const aggregate = new HeadTailAggregate();
    for (let at = 0; at < output.length; at += 100_000) {
      const delta = output.subarray(at, at + 100_000);
      aggregate.push(delta);
      stream.push(delta);
    }
    const state = await stream.finish(aggregate.toBuffer());
    expect(state).toEqual({
      byteLength: output.length,
      generation: 1,
      complete: true,
      sourceIncomplete: false,
      storageError: null,
    });
    expect(fs.readFileSync(fx.fileOf(key)).equals(output)).toBe(true);
  });

  it('OUT-4 finish with the same bytes completes in place; nothing can be pushed afterwards', async () => {
    const { fx, stream } = setup();
    const output = Buffer.from('hello\nworld\n');
    stream.push(output.subarray(0, 3));
    stream.push(output.subarray(3));
    const state = await stream.finish(Buffer.from(output));
    expect(state).toMatchObject({ byteLength: output.length, generation: 1, complete: true, sourceIncomplete: false });
    expect(() => stream.push(Buffer.from('more'))).toThrow();
    expect(fs.readFileSync(fx.fileOf(key)).equals(output)).toBe(true);
  });

  it('OUT-4 finish without an aggregate completes with sourceIncomplete true', async () => {
    const { stream } = setup();
    stream.push(Buffer.from('partial?'));
    const state = await stream.finish(null);
    expect(state).toMatchObject({ byteLength: 8, generation: 1, complete: true, sourceIncomplete: true });
  });
});

describe('CommandOutputStream backpressure', () => {
  it('OUT-8 push asks the producer to pause past 8 MiB queued, and whenDrained resolves once the queue is written', async () => {
    const { fx, stream } = setup();
    const deltaSize = 64 * KiB;
    const parts: Buffer[] = [];
    let pushed = 0;
    let accepted = true;
    for (let i = 0; accepted; i++) {
      const part = patternBytes(deltaSize, i + 1);
      parts.push(part);
      accepted = stream.push(part);
      pushed += part.length;
      if (accepted) expect(pushed).toBeLessThan(HIGH_WATER + 2 * deltaSize);
      expect(pushed).toBeLessThan(HIGH_WATER + 3 * deltaSize); // stops within a delta or two of the mark
    }
    // Nothing was refused: the producer is only asked to pause.
    expect(pushed).toBeGreaterThanOrEqual(HIGH_WATER);

    await within(stream.whenDrained(), 20_000, 'whenDrained');
    expect(stream.push(Buffer.from('after the pause'))).toBe(true);
    parts.push(Buffer.from('after the pause'));
    await stream.finish(null);
    expect(fs.readFileSync(fx.fileOf(key)).equals(Buffer.concat(parts))).toBe(true);
  });

  it('OUT-8 whenDrained resolves at once when little is queued', async () => {
    const { stream } = setup();
    stream.push(Buffer.from('small'));
    await within(stream.whenDrained(), 1000, 'whenDrained');
    await stream.flush();
  });
});

describe('CommandOutputStream after a failed append (OUT-3)', () => {
  it('OUT-3 a failed append drops later deltas, still counts them, releases a paused producer, and the aggregate settles as generation 2', async () => {
    const { fx, stream, commits } = setup();
    const file = fx.fileOf(key);
    fs.rmSync(file);
    fs.symlinkSync('/dev/full', file); // every write fails with ENOSPC

    const aggregate = new HeadTailAggregate();
    const deltaSize = 256 * KiB;
    let pushed = 0;
    let paused = false;
    for (let i = 0; pushed < HIGH_WATER + 4 * MiB; i++) {
      const part = patternBytes(deltaSize, i + 1);
      aggregate.push(part);
      if (!stream.push(part)) paused = true;
      pushed += part.length;
    }
    expect(paused).toBe(true);
    await within(stream.whenDrained(), 10_000, 'whenDrained after a failure');
    await stream.flush();
    expect(stream.ledger.bytes).toBe(pushed);
    expect(commits.length).toBeGreaterThan(0);
    expect(commits.at(-1)).toMatchObject({ byteLength: 0, storageError: STORAGE_FULL_MESSAGE });

    // Later deltas are counted, and dropped even though the disk works again.
    fs.rmSync(file);
    fs.writeFileSync(file, '');
    const tail = Buffer.from('dropped');
    stream.push(tail);
    aggregate.push(tail);
    pushed += tail.length;
    await stream.flush();
    expect(fs.readFileSync(file).length).toBe(0);
    expect(stream.ledger.bytes).toBe(pushed);

    const state = await stream.finish(aggregate.toBuffer());
    expect(state).toEqual({
      byteLength: aggregate.toBuffer().length,
      generation: 2,
      complete: true,
      sourceIncomplete: true,
      storageError: cutOffOutputMessage(STORAGE_FULL_MESSAGE),
    });
    expect(fs.readFileSync(fx.fileOf(key)).equals(aggregate.toBuffer())).toBe(true);
  });

  it('OUT-6 a stream whose artifact was deleted with its session stops quietly', async () => {
    const { fx, stream } = setup();
    stream.push(Buffer.from('before\n'));
    await stream.flush();
    const files = fx.db.transaction(() => fx.store.catalog.deleteForSession(fx.sessionId))();
    fx.store.removeFiles(files);
    expect(() => stream.push(Buffer.from('after\n'))).not.toThrow();
    await within(stream.flush(), 5000, 'flush');
    expect(fs.readdirSync(fx.store.dir)).toEqual([]);
  });
});
