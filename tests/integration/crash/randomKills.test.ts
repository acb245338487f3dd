import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../fixtures/tempDir';
import { runRandomKills } from './randomKillRounds';

/**
 * OUT-2 under random kills (randomKillRounds.ts). A few rounds here, and more until one kill has
 * landed inside an append; `npm run bench out2` runs a hundred. Repeat a run with
 * CRASH_SEED=<seed>; CRASH_ROUNDS=<n> runs at least n rounds.
 */
const MIN_ROUNDS = Number(process.env.CRASH_ROUNDS ?? 8);
const MAX_ROUNDS = Math.max(MIN_ROUNDS, 100);

describe('OUT-2 random kills during a long stream', () => {
  it(
    `OUT-2 SIGKILLs at random moments (${MIN_ROUNDS} or more) never lose a committed byte nor commit a wrong one`,
    { timeout: 240_000 },
    async () => {
      const seed = Number(process.env.CRASH_SEED ?? crypto.randomInt(2 ** 31));
      const result = await runRandomKills({
        dataDir: makeTempDir('hbcode-crash-'),
        seed,
        minRounds: MIN_ROUNDS,
        maxRounds: MAX_ROUNDS,
      });
      console.log(
        `random kills CRASH_SEED=${seed}: ${result.committed} bytes committed over ${result.rounds} rounds, recoveries ${JSON.stringify(result.tally)}; ` +
          `per round: child start ${Math.round(result.startMs)} ms, verification ${Math.round(result.verifyMs)} ms`,
      );
      expect(result.rounds).toBeGreaterThanOrEqual(MIN_ROUNDS);
      expect(result.committed).toBeGreaterThan(0);
      // About a quarter of the kills land while a pending row exists; none at all would mean the
      // kills never hit the write-ahead window this test is about.
      expect(result.rounds - (result.tally.clean ?? 0)).toBeGreaterThan(0);
    },
  );
});
