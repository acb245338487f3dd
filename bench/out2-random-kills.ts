import crypto from 'node:crypto';
import { runRandomKills } from '../tests/integration/crash/randomKillRounds';
import { benchSettings, type Benchmark, type BenchOutcome } from './lib/report';
import { makeTempDir } from './lib/tempDirs';

/**
 * OUT-2 at full scale: the random-kill rounds of tests/integration/crash/randomKills.test.ts, a
 * hundred of them (the test runs a few). A lost or wrong committed byte fails the run, naming the
 * seed (CRASH_SEED repeats it; HBCODE_BENCH_ROUNDS changes the count).
 */
export const out2RandomKills: Benchmark = {
  name: 'out2-random-kills',
  async run(progress): Promise<BenchOutcome> {
    const { rounds } = benchSettings(1, 100);
    const seed = Number(process.env.CRASH_SEED ?? crypto.randomInt(2 ** 31));
    progress(`OUT-2: ${rounds} SIGKILLs at random moments, CRASH_SEED=${seed}`);
    const result = await runRandomKills({
      dataDir: makeTempDir('hbcode-bench-crash-'),
      seed,
      minRounds: rounds,
      maxRounds: rounds,
    });
    if (result.rounds - (result.tally.clean ?? 0) === 0)
      throw new Error(`none of ${result.rounds} kills landed inside an append (CRASH_SEED=${seed})`);
    return {
      comparisons: [],
      parameters: { rounds, seed },
      measurements: {
        committedBytes: result.committed,
        recoveries: result.tally,
        childStartMsPerRound: Math.round(result.startMs),
        verificationMsPerRound: Math.round(result.verifyMs),
      },
      notes: [
        'Every round recovered the case its raw state called for, and the file held exactly the committed stream bytes.',
      ],
    };
  },
};
