import crypto from 'node:crypto';
import { performance as nodePerformance } from 'node:perf_hooks';
import fs from 'node:fs';
import path from 'node:path';
import { CommandOutputStore } from '../server/runtime/output/commandOutputStore';
import type { OutputKey } from '../server/runtime/output/catalog';
import { CommandOutputStream } from '../server/runtime/output/commandOutputStream';
import { silentLogger } from '../server/runtime/log';
import { MIGRATIONS_DIR } from '../server/runtime/paths';
import { openDatabase } from '../server/runtime/store/database';
import { sha256OfFile } from './lib/fileDigest';
import { deltaAt, planDeltas, randomPool, seededRandom, type DeltaPlan } from './lib/prng';
import { benchSettings, formatSize, GIB, type Benchmark, type BenchOutcome } from './lib/report';
import { median, now, rotateRounds } from './lib/rounds';
import { makeTempDir, removeTempDir } from './lib/tempDirs';

const SEED = 0x0bad5eed;
const POOL_BYTES = 64 * 1024 * 1024;
const MIN_DELTA_BYTES = 4 * 1024;
const MAX_DELTA_BYTES = 64 * 1024;
const SESSION_ID = 'bench-session';

interface OursRun {
  /** From the first push until `finish` resolved (finish makes the artifact durable, then settles it). */
  seconds: number;
  /** From the first push until the last append transaction committed. */
  toLastCommitSeconds: number;
  /** Append transactions, i.e. group commits. */
  commits: number;
  /** Times the producer was asked to wait for `whenDrained`. */
  pauses: number;
  /** Time the event loop was busy during the run (it idles while the SHA-256 worker and the disk work). */
  eventLoopBusySeconds: number;
}

interface ReferenceRun {
  seconds: number;
  /** The fdatasync after the last write, timed separately. */
  fdatasyncSeconds: number;
}

interface PerDeltaRun {
  seconds: number;
}

function sha256OfPlan(plan: DeltaPlan): string {
  const hash = crypto.createHash('sha256');
  for (let i = 0; i < plan.lengths.length; i++) hash.update(deltaAt(plan, i));
  return hash.digest('hex');
}

/** A real store in a temp folder: the runtime's database, migrations and output folder. */
function openBenchStore(dir: string) {
  const db = openDatabase(path.join(dir, 'runtime.sqlite'), MIGRATIONS_DIR);
  const createdAt = Date.now();
  db.prepare('INSERT INTO projects (id, name, directory, created_at) VALUES (?, ?, ?, ?)').run(
    'bench-project',
    'bench',
    dir,
    createdAt,
  );
  db.prepare('INSERT INTO sessions (id, project_id, agent, title, created_at) VALUES (?, ?, ?, ?, ?)').run(
    SESSION_ID,
    'bench-project',
    'shell',
    'bench',
    createdAt,
  );
  const store = new CommandOutputStore(db, path.join(dir, 'command-outputs'), silentLogger);
  return { db, store };
}

export const perf1OutputIngest: Benchmark = {
  name: 'perf1-output-ingest',
  async run(progress): Promise<BenchOutcome> {
    const { totalBytes, rounds, overridden } = benchSettings(GIB, 3);
    const random = seededRandom(SEED);
    const pool = randomPool(POOL_BYTES, random);
    const plan = planDeltas({ pool, totalBytes, minBytes: MIN_DELTA_BYTES, maxBytes: MAX_DELTA_BYTES, random });
    const expectedSha256 = sha256OfPlan(plan);
    const deltaCount = plan.lengths.length;
    progress(`PERF-1: ${deltaCount} deltas, ${formatSize(totalBytes)}, ${rounds} rounds`);

    const dir = makeTempDir('hbcode-bench-perf1-');
    const { db, store } = openBenchStore(dir);
    let keys = 0;
    const newKey = (): OutputKey => ({ runId: `bench-run-${++keys}`, commandId: '1' });

    /** Checks the artifact outside the timing, then removes its file so dirty pages do not pile up. */
    const verifyArtifact = (key: OutputKey, what: string, expectComplete: boolean) => {
      const row = store.catalog.get(key)!;
      const file = path.join(store.dir, row.fileName);
      if (row.byteLength !== totalBytes)
        throw new Error(`${what}: catalog holds ${row.byteLength} bytes, expected ${totalBytes}`);
      if (row.storageError) throw new Error(`${what}: storage error: ${row.storageError}`);
      if (row.complete !== expectComplete)
        throw new Error(`${what}: complete is ${row.complete}, expected ${expectComplete}`);
      const size = fs.statSync(file).size;
      if (size !== totalBytes) throw new Error(`${what}: artifact file is ${size} bytes, expected ${totalBytes}`);
      const sha = sha256OfFile(file);
      if (sha !== expectedSha256)
        throw new Error(`${what}: artifact SHA-256 ${sha} differs from the stream's ${expectedSha256}`);
      fs.rmSync(file);
    };

    const ours = async (): Promise<OursRun> => {
      const key = newKey();
      store.create(key, SESSION_ID);
      let commits = 0;
      let pauses = 0;
      const loopBefore = nodePerformance.eventLoopUtilization();
      const started = now();
      let lastCommitAt = started;
      const stream = new CommandOutputStream(store, key, () => {
        lastCommitAt = now();
        commits++;
      });
      for (let i = 0; i < deltaCount; i++) {
        if (!stream.push(deltaAt(plan, i))) {
          pauses++;
          await stream.whenDrained();
        }
      }
      await stream.finish(null);
      const finished = now();
      const eventLoopBusySeconds = nodePerformance.eventLoopUtilization(loopBefore).active / 1000;
      verifyArtifact(key, 'CommandOutputStream', true);
      return {
        seconds: (finished - started) / 1000,
        toLastCommitSeconds: (lastCommitAt - started) / 1000,
        commits,
        pauses,
        eventLoopBusySeconds,
      };
    };

    const reference = async (round: number): Promise<ReferenceRun> => {
      const file = path.join(dir, `reference-${round}.bin`);
      const started = now();
      const fd = fs.openSync(file, 'w');
      for (let i = 0; i < deltaCount; i++) {
        const written = fs.writeSync(fd, deltaAt(plan, i));
        if (written !== plan.lengths[i]) throw new Error(`short write: ${written} of ${plan.lengths[i]} bytes`);
      }
      const written = now();
      fs.fdatasyncSync(fd);
      const synced = now();
      fs.closeSync(fd);
      const sha = sha256OfFile(file);
      if (sha !== expectedSha256)
        throw new Error(`reference file SHA-256 ${sha} differs from the stream's ${expectedSha256}`);
      fs.rmSync(file);
      return { seconds: (written - started) / 1000, fdatasyncSeconds: (synced - written) / 1000 };
    };

    const perDelta = async (): Promise<PerDeltaRun> => {
      const key = newKey();
      store.create(key, SESSION_ID);
      const started = now();
      for (let i = 0; i < deltaCount; i++) {
        const delta = deltaAt(plan, i);
        if (!store.appendWriteAhead(key, delta, crypto.createHash('sha256').update(delta).digest()))
          throw new Error('appendWriteAhead refused a delta');
      }
      const finished = now();
      verifyArtifact(key, 'appendWriteAhead per delta', false);
      return { seconds: (finished - started) / 1000 };
    };

    const gibPerSecond = (seconds: number) => totalBytes / GIB / seconds;
    try {
      // The first gigabyte written in a fresh VM runs at a fraction of the later speed (pages
      // touched for the first time), so every path runs once untimed.
      progress('PERF-1 warm-up (untimed)');
      await reference(-1);
      await ours();
      await perDelta();

      const results = await rotateRounds(
        rounds,
        { ours, reference, perDelta },
        progress,
        (run) => `${gibPerSecond(run.seconds).toFixed(2)} GiB/s`,
      );

      const oursSeconds = median(results.ours.map((r) => r.seconds));
      const oursToCommitSeconds = median(results.ours.map((r) => r.toLastCommitSeconds));
      const oursEventLoopBusySeconds = median(results.ours.map((r) => r.eventLoopBusySeconds));
      const referenceSeconds = median(results.reference.map((r) => r.seconds));
      const referenceSyncedSeconds = median(results.reference.map((r) => r.seconds + r.fdatasyncSeconds));
      const perDeltaSeconds = median(results.perDelta.map((r) => r.seconds));
      const common = { rule: 'PERF-1', unit: 'GiB/s', better: 'higher' } as const;

      return {
        comparisons: [
          {
            ...common,
            label: 'ingest',
            oursName: 'ours',
            referenceName: 'fs.writeSync',
            ours: gibPerSecond(oursSeconds),
            reference: gibPerSecond(referenceSeconds),
            target: 0.7,
          },
          {
            ...common,
            label: 'ingest, both durable',
            oursName: 'ours',
            referenceName: 'fs.writeSync+fdatasync',
            ours: gibPerSecond(oursSeconds),
            reference: gibPerSecond(referenceSyncedSeconds),
            target: null,
          },
          {
            ...common,
            label: 'ingest to last commit',
            oursName: 'ours before settle',
            referenceName: 'fs.writeSync',
            ours: gibPerSecond(oursToCommitSeconds),
            reference: gibPerSecond(referenceSeconds),
            target: null,
          },
          {
            ...common,
            label: 'ingest, one appendWriteAhead per delta',
            oursName: 'per-delta',
            referenceName: 'fs.writeSync',
            ours: gibPerSecond(perDeltaSeconds),
            reference: gibPerSecond(referenceSeconds),
            target: null,
          },
        ],
        parameters: {
          totalBytes,
          overridden,
          rounds,
          seed: SEED,
          poolBytes: POOL_BYTES,
          minDeltaBytes: MIN_DELTA_BYTES,
          maxDeltaBytes: MAX_DELTA_BYTES,
          deltaCount,
          tempDir: dir,
        },
        measurements: {
          expectedSha256,
          verified:
            'every timed run: catalog length, file size and SHA-256 against the stream, after its timer stopped',
          ours: results.ours,
          reference: results.reference,
          perDelta: results.perDelta,
          medianSeconds: {
            ours: oursSeconds,
            oursToLastCommit: oursToCommitSeconds,
            oursEventLoopBusy: oursEventLoopBusySeconds,
            reference: referenceSeconds,
            referenceWithFdatasync: referenceSyncedSeconds,
            perDelta: perDeltaSeconds,
          },
        },
        notes: [
          'ours: CommandOutputStream fed with backpressure (push, whenDrained), timed from the first push until finish(null) resolved; finish fdatasyncs the artifact and settles it. "to last commit" stops at the last append transaction instead. SHA-256 runs on a worker thread; eventLoopBusy is the main thread\'s share of that time.',
          'fs.writeSync: one file, the same deltas, timed from open to the last write; its fdatasync is timed separately for the "both durable" line.',
          'per-delta: store.appendWriteAhead(key, delta, sha256(delta)) once per delta, synchronously; no settle.',
        ],
      };
    } finally {
      db.close();
      removeTempDir(dir);
    }
  },
};
