import crypto from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OutputKey } from '../../../../server/runtime/output/catalog';
import { CommandOutputStream } from '../../../../server/runtime/output/commandOutputStream';
import { sha256OffThread, type DigestedGroup, type Sha256Digest } from '../../../../server/runtime/output/sha256Worker';
import { openOutputStore, patternBytes } from '../../../fixtures/outputStoreFixture';

const MiB = 1024 * 1024;
const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest();

/** How many turns the event loop made while `digest` ran: none when it hashes on the loop itself. */
async function loopTurnsDuring(
  digest: Sha256Digest,
  group: Buffer,
): Promise<{ turns: number; digested: DigestedGroup }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  const digested = await digest(group);
  done = true;
  return { turns, digested };
}

/** Hashing on the event loop, as the stream did before (PERF-1): the control for the check below. */
const sha256OnTheLoop: Sha256Digest = async (group) => ({ sha256: sha256(group), bytes: group });

describe('SHA-256 of write-ahead groups off the event loop (PERF-1, OUT-2)', () => {
  it('PERF-1 the digest is the SHA-256 of the group, and the group comes back unchanged', async () => {
    const owned = Buffer.allocUnsafeSlow(MiB);
    patternBytes(MiB, 3).copy(owned);
    const expected = Buffer.from(owned);
    const digested = await sha256OffThread(owned);
    expect(digested.sha256.equals(sha256(expected))).toBe(true);
    expect(digested.bytes.equals(expected)).toBe(true);

    // A view into memory shared with other buffers is hashed from a copy; the caller's buffer stays usable.
    const pooled = Buffer.from('a small delta that lives in the shared buffer pool');
    const fromPool = await sha256OffThread(pooled);
    expect(fromPool.sha256.equals(sha256(pooled))).toBe(true);
    expect(fromPool.bytes.toString()).toBe(pooled.toString());
    expect(pooled.toString()).toBe('a small delta that lives in the shared buffer pool');
  });

  it('PERF-1 the event loop keeps turning while a large group is hashed; hashing on the loop does not', async () => {
    const size = 128 * MiB;
    const group = Buffer.allocUnsafeSlow(size).fill(7);
    const offThread = await loopTurnsDuring(sha256OffThread, group);
    expect(offThread.turns).toBeGreaterThan(0);
    expect(offThread.digested.sha256.equals(sha256(Buffer.alloc(size, 7)))).toBe(true);
    // The check can fail: the same measurement of hashing on the event loop sees no turn at all.
    const onLoop = await loopTurnsDuring(sha256OnTheLoop, Buffer.alloc(size, 7));
    expect(onLoop.turns).toBe(0);
  });

  it('OUT-2 an append waits for its digest: no pending row and no byte on disk before it is known', async () => {
    const fx = openOutputStore();
    const key: OutputKey = { runId: 'run-1', commandId: 'cmd-1' };
    fx.store.create(key, fx.sessionId);
    const held: { group: Buffer; release: () => void }[] = [];
    const heldDigest: Sha256Digest = (group) =>
      new Promise<DigestedGroup>((resolve) =>
        held.push({ group, release: () => resolve({ sha256: sha256(group), bytes: group }) }),
      );
    const stream = new CommandOutputStream(fx.store, key, () => undefined, heldDigest);
    stream.push(Buffer.from('first\n'));
    stream.push(Buffer.from('second\n'));
    const flushed = stream.flush();
    while (held.length === 0) await new Promise((resolve) => setImmediate(resolve));
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(fx.pendingCount()).toBe(0);
    expect(fs.statSync(fx.fileOf(key)).size).toBe(0);
    expect(fx.store.state(key)!.byteLength).toBe(0);
    held[0]!.release();
    await flushed;
    expect(fs.readFileSync(fx.fileOf(key)).toString()).toBe('first\nsecond\n');
    expect(fx.pendingCount()).toBe(0);
  });
});
