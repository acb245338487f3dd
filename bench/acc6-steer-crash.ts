import { claudeSteerCrash, codexSteerCrash, type SteerOutcome } from '../tests/fixtures/steerCrashScenarios';
import { benchSettings, type Benchmark, type BenchOutcome } from './lib/report';

const count = (outcomes: SteerOutcome[], which: SteerOutcome) => outcomes.filter((o) => o === which).length;

/**
 * ACC-6 under crashes at full scale: the runtime killed 0–3 s after a steer into a real Codex and a
 * real Claude turn, twenty rounds each (tests/integration/agents/*SteerCrash.test.ts run four). A
 * steer row that says delivered while the model was never sent it fails the run.
 */
export const acc6SteerCrash: Benchmark = {
  name: 'acc6-steer-crash',
  async run(progress): Promise<BenchOutcome> {
    const { rounds } = benchSettings(1, 20);
    progress(`ACC-6: ${rounds} runtime kills after a steer into a Codex turn`);
    const codex = await codexSteerCrash(rounds);
    progress(`ACC-6: ${rounds} runtime kills after a steer into a Claude turn`);
    const claude = await claudeSteerCrash(rounds);
    for (const [agent, outcomes] of [
      ['Codex', codex],
      ['Claude', claude],
    ] as const) {
      if (count(outcomes, 'delivered') === 0 || count(outcomes, 'notDelivered') === 0)
        throw new Error(`${agent}: the rounds did not cover both outcomes (${outcomes.join(', ')})`);
    }
    return {
      comparisons: [],
      parameters: { rounds, maxKillAfterMs: 3_000 },
      measurements: {
        codex: { delivered: count(codex, 'delivered'), notDelivered: count(codex, 'notDelivered') },
        claude: { delivered: count(claude, 'delivered'), notDelivered: count(claude, 'notDelivered') },
      },
      notes: [
        'Every steer row that said delivered had its text in a model request; every other one said not delivered with Send again.',
      ],
    };
  },
};
