import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RecoveryOutcome } from '../../../server/runtime/output/recoverArtifact';
import { sweepOutputFolder } from '../../../server/runtime/output/startupSweep';
import { seededRandom } from '../../fixtures/crashContent';
import { openCrashStore } from '../../fixtures/crashPlan';
import { describeArtifactMismatch, pendingCount, prepareDataDir, rawState, startChild, type RawState, type RunningChild } from './crashHarness';

/**
 * OUT-2 under random kills: a child streams deterministic content through CommandOutputStream
 * (random deltas of 1 B to 64 KiB, group commits, SHA-256 on and off the thread pool) and is
 * killed by SIGKILL at a random moment; the test recovers and checks the stream, then a new
 * child continues from the committed length. Repeat with CRASH_SEED=<seed> to get the same
 * delta sizes and kill delays.
 */
const ROUNDS = 100;
const MIN_KILL_DELAY_MS = 2;
const MAX_KILL_DELAY_MS = 100;

/** The case of the recovery table that the raw state left by a kill calls for. */
function expectedOutcome(raw: RawState): RecoveryOutcome {
  const committed = raw.row.byteLength;
  if (raw.fileSize === null || raw.fileSize < committed) throw new Error(`the file has ${raw.fileSize} bytes, fewer than the ${committed} committed`);
  if (raw.pending.length === 0) {
    if (raw.fileSize > committed) throw new Error(`${raw.fileSize - committed} bytes were written without a pending row`);
    return 'clean';
  }
  if (raw.pending.length > 1) throw new Error(`${raw.pending.length} pending rows; one append is in flight at a time`);
  const p = raw.pending[0]!;
  if (p.expectedOffset !== committed || p.generation !== raw.row.generation) {
    throw new Error(`the pending append expects offset ${p.expectedOffset} generation ${p.generation}, the catalog is at ${committed} generation ${raw.row.generation}`);
  }
  const end = p.expectedOffset + p.length;
  if (raw.fileSize === committed) return 'pending-dropped';
  if (raw.fileSize < end) return 'torn-cut';
  if (raw.fileSize === end) return 'committed';
  throw new Error(`the file runs ${raw.fileSize - end} bytes past the pending append`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('OUT-2 random kills during a long stream', () => {
  it(`OUT-2 ${ROUNDS} SIGKILLs at random moments never lose a committed byte nor commit a wrong one`, { timeout: 240_000 }, async () => {
    const seed = Number(process.env.CRASH_SEED ?? crypto.randomInt(2 ** 31));
    const random = seededRandom(seed);
    const { dataDir, key } = prepareDataDir();
    const timings = { startMs: 0, verifyMs: 0 };
    const tally: Partial<Record<RecoveryOutcome, number>> = {};
    let committed = 0;
    let round = 0;
    let child: RunningChild | null = null;
    try {
      for (round = 1; round <= ROUNDS; round++) {
        const started = performance.now();
        child = startChild({ mode: 'stream', dataDir, key, seed: Math.floor(random() * 2 ** 31), shortWrites: round % 2 === 0 });
        const ready = await child.next('ready');
        if (ready.byteLength !== committed) throw new Error(`the child starts at ${ready.byteLength}, the committed length is ${committed}`);
        await child.next('streaming');
        timings.startMs += performance.now() - started;
        await sleep(MIN_KILL_DELAY_MS + random() * (MAX_KILL_DELAY_MS - MIN_KILL_DELAY_MS));
        child.kill();
        const exit = await child.exited;
        child = null;
        if (exit.signal !== 'SIGKILL') throw new Error(`the child ended by itself (code ${exit.code}):\n${exit.stderr}`);

        const opened = openCrashStore(dataDir);
        try {
          const raw = rawState(opened, key);
          if (raw.row.byteLength < committed) throw new Error(`byte_length went back from ${committed} to ${raw.row.byteLength}`);
          const outcome = expectedOutcome(raw);
          const found = `file ${raw.fileSize} B, catalog ${raw.row.byteLength} B, pending ${JSON.stringify(raw.pending.map((p) => [p.expectedOffset, p.length]))}`;
          expect(sweepOutputFolder(opened.store).recovered, found).toEqual(outcome === 'clean' ? {} : { [outcome]: 1 });
          tally[outcome] = (tally[outcome] ?? 0) + 1;

          const row = opened.store.catalog.get(key)!;
          expect(row.storageError, found).toBeNull();
          expect(pendingCount(opened), found).toBe(0);
          const pending = raw.pending[0];
          expect(row.byteLength, found).toBe(outcome === 'committed' && pending ? pending.expectedOffset + pending.length : raw.row.byteLength);
          const verifyStarted = performance.now();
          expect(describeArtifactMismatch(raw.file, row.byteLength), found).toBeNull();
          timings.verifyMs += performance.now() - verifyStarted;
          committed = row.byteLength;
        } finally {
          opened.db.close();
        }
      }
    } catch (error) {
      child?.kill();
      throw new Error(`random kills failed in round ${round} of ${ROUNDS} with CRASH_SEED=${seed}: ${(error as Error).message}`, { cause: error });
    }
    console.log(
      `random kills CRASH_SEED=${seed}: ${committed} bytes committed over ${ROUNDS} rounds, recoveries ${JSON.stringify(tally)}; ` +
        `per round: child start ${Math.round(timings.startMs / ROUNDS)} ms, verification ${Math.round(timings.verifyMs / ROUNDS)} ms`,
    );
    expect(committed).toBeGreaterThan(0);
    // About a quarter of the kills land while a pending row exists; none at all would mean the
    // kills never hit the write-ahead window this test is about.
    expect(ROUNDS - (tally.clean ?? 0)).toBeGreaterThan(0);
  });
});
