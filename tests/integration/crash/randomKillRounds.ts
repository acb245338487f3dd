import assert from 'node:assert/strict';
import type { RecoveryOutcome } from '../../../server/runtime/output/recoverArtifact';
import { sweepOutputFolder } from '../../../server/runtime/output/startupSweep';
import { seededRandom } from '../../fixtures/crashContent';
import { openCrashStore } from '../../fixtures/crashPlan';
import {
  describeArtifactMismatch,
  pendingCount,
  prepareDataDir,
  rawState,
  startChild,
  type RawState,
  type RunningChild,
} from './crashHarness';

/**
 * OUT-2 under random kills: a child streams deterministic content through CommandOutputStream
 * (random deltas of 1 B to 64 KiB, group commits, SHA-256 on and off the thread pool) and is
 * killed by SIGKILL at a random moment; each round recovers and checks the stream, then a new
 * child continues from the committed length. The same seed gives the same delta sizes and kill
 * delays. The test runs a few rounds, `npm run bench out2` a hundred; nothing here imports vitest.
 */
const MIN_KILL_DELAY_MS = 2;
const MAX_KILL_DELAY_MS = 100;

export interface RandomKillOptions {
  /** An empty folder for the data. */
  dataDir: string;
  seed: number;
  /** Rounds always run. */
  minRounds: number;
  /** Past `minRounds`, rounds go on until one kill has landed inside an append (at most this many). */
  maxRounds: number;
}

export interface RandomKillResult {
  rounds: number;
  /** Bytes committed at the end, all of them checked against the stream. */
  committed: number;
  tally: Partial<Record<RecoveryOutcome, number>>;
  /** Per round: starting the child until it streams, and checking the file. */
  startMs: number;
  verifyMs: number;
}

/** The case of the recovery table that the raw state left by a kill calls for. */
export function expectedOutcome(raw: RawState): RecoveryOutcome {
  const committed = raw.row.byteLength;
  if (raw.fileSize === null || raw.fileSize < committed)
    throw new Error(`the file has ${raw.fileSize} bytes, fewer than the ${committed} committed`);
  if (raw.pending.length === 0) {
    if (raw.fileSize > committed)
      throw new Error(`${raw.fileSize - committed} bytes were written without a pending row`);
    return 'clean';
  }
  if (raw.pending.length > 1) throw new Error(`${raw.pending.length} pending rows; one append is in flight at a time`);
  const p = raw.pending[0]!;
  if (p.expectedOffset !== committed || p.generation !== raw.row.generation) {
    throw new Error(
      `the pending append expects offset ${p.expectedOffset} generation ${p.generation}, the catalog is at ${committed} generation ${raw.row.generation}`,
    );
  }
  const end = p.expectedOffset + p.length;
  if (raw.fileSize === committed) return 'pending-dropped';
  if (raw.fileSize < end) return 'torn-cut';
  if (raw.fileSize === end) return 'committed';
  throw new Error(`the file runs ${raw.fileSize - end} bytes past the pending append`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Kills, recovers and checks round after round; throws at the first committed byte lost or wrong. */
export async function runRandomKills(options: RandomKillOptions): Promise<RandomKillResult> {
  const random = seededRandom(options.seed);
  const { key } = prepareDataDir(options.dataDir);
  const tally: Partial<Record<RecoveryOutcome, number>> = {};
  const timings = { startMs: 0, verifyMs: 0 };
  const hitAnAppend = () => Object.entries(tally).some(([outcome, n]) => outcome !== 'clean' && n > 0);
  let committed = 0;
  let round = 0;
  let child: RunningChild | null = null;
  try {
    for (round = 1; round <= options.maxRounds && (round <= options.minRounds || !hitAnAppend()); round++) {
      const started = performance.now();
      child = startChild({
        mode: 'stream',
        dataDir: options.dataDir,
        key,
        seed: Math.floor(random() * 2 ** 31),
        shortWrites: round % 2 === 0,
      });
      const ready = await child.next('ready');
      if (ready.byteLength !== committed)
        throw new Error(`the child starts at ${ready.byteLength}, the committed length is ${committed}`);
      await child.next('streaming');
      timings.startMs += performance.now() - started;
      await sleep(MIN_KILL_DELAY_MS + random() * (MAX_KILL_DELAY_MS - MIN_KILL_DELAY_MS));
      child.kill();
      const exit = await child.exited;
      child = null;
      if (exit.signal !== 'SIGKILL') throw new Error(`the child ended by itself (code ${exit.code}):\n${exit.stderr}`);

      const opened = openCrashStore(options.dataDir);
      try {
        const raw = rawState(opened, key);
        if (raw.row.byteLength < committed)
          throw new Error(`byte_length went back from ${committed} to ${raw.row.byteLength}`);
        const outcome = expectedOutcome(raw);
        const found = `file ${raw.fileSize} B, catalog ${raw.row.byteLength} B, pending ${JSON.stringify(raw.pending.map((p) => [p.expectedOffset, p.length]))}`;
        assert.deepEqual(sweepOutputFolder(opened.store).recovered, outcome === 'clean' ? {} : { [outcome]: 1 }, found);
        tally[outcome] = (tally[outcome] ?? 0) + 1;

        const row = opened.store.catalog.get(key)!;
        assert.equal(row.storageError, null, found);
        assert.equal(pendingCount(opened), 0, found);
        const pending = raw.pending[0];
        assert.equal(
          row.byteLength,
          outcome === 'committed' && pending ? pending.expectedOffset + pending.length : raw.row.byteLength,
          found,
        );
        const verifyStarted = performance.now();
        assert.equal(describeArtifactMismatch(raw.file, row.byteLength), null, found);
        timings.verifyMs += performance.now() - verifyStarted;
        committed = row.byteLength;
      } finally {
        opened.db.close();
      }
    }
  } catch (error) {
    child?.kill();
    throw new Error(
      `random kills failed in round ${round} with CRASH_SEED=${options.seed}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const rounds = round - 1;
  return { rounds, committed, tally, startMs: timings.startMs / rounds, verifyMs: timings.verifyMs / rounds };
}
