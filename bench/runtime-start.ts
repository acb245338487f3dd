/**
 * PERF-9: the CPU time (user + system) the runtime's process spends from its start until /healthz
 * first answers 200, started from the bundle as `npm start` runs it (dist/main.mjs, plain node,
 * source maps on) against the same runtime started from its TypeScript sources through tsx.
 * Each round starts each on a fresh data folder; the two alternate who goes first.
 */
import path from 'node:path';
import { REPO_ROOT } from '../server/runtime/paths';
import { bundledProgramArgs } from '../tests/fixtures/bundledPrograms';
import { startRuntimeProcess } from '../tests/fixtures/runtimeProcess';
import { procUsage } from './lib/procUsage';
import type { Benchmark, BenchOutcome } from './lib/report';
import { median, now, rotateRounds } from './lib/rounds';

const ROUNDS = 7;
const MAIN_SOURCE = path.join(REPO_ROOT, 'server', 'main.ts');

/** The runtime's command with its bundle replaced by its source under tsx. */
function fromSource(command: string[]): string[] {
  const bundle = bundledProgramArgs(MAIN_SOURCE);
  const at = command.indexOf(bundle.at(-1)!);
  if (at < 0) throw new Error(`no bundle in ${command.join(' ')}`);
  return [command[0]!, '--import', 'tsx', MAIN_SOURCE, ...command.slice(at + 1)];
}

interface Start {
  cpuSeconds: number;
  wallMs: number;
}

async function timeStart(wrap?: (command: string[]) => string[]): Promise<Start> {
  const started = now();
  const runtime = await startRuntimeProcess(wrap ? { wrap } : {});
  const wallMs = now() - started;
  const usage = procUsage(runtime.child.pid!);
  await runtime.stop();
  if (!usage) throw new Error('no /proc usage for the runtime');
  return { cpuSeconds: usage.cpuSeconds, wallMs };
}

export const runtimeStart: Benchmark = {
  name: 'runtime-start',
  async run(progress): Promise<BenchOutcome> {
    const rounds = await rotateRounds(
      ROUNDS,
      { bundle: () => timeStart(), tsx: () => timeStart(fromSource) },
      progress,
      (s) => `${s.cpuSeconds.toFixed(2)} CPU-s, ${Math.round(s.wallMs)} ms`,
    );
    const cpu = (starts: Start[]) => median(starts.map((s) => s.cpuSeconds));
    const wall = (starts: Start[]) => median(starts.map((s) => s.wallMs));
    const names = { oursName: 'bundle (node dist/main.mjs)', referenceName: 'sources through tsx' };
    return {
      comparisons: [
        {
          rule: 'PERF-9',
          label: 'runtime start to /healthz 200, CPU user+sys (median)',
          unit: 'CPU-s',
          better: 'lower',
          ...names,
          ours: cpu(rounds.bundle),
          reference: cpu(rounds.tsx),
          target: 0.5,
        },
        {
          rule: 'PERF-9',
          label: 'runtime start to /healthz 200, wall clock (median)',
          unit: 'ms',
          better: 'lower',
          ...names,
          ours: wall(rounds.bundle),
          reference: wall(rounds.tsx),
          target: null,
        },
      ],
      parameters: { rounds: ROUNDS, sourceMaps: 'on for the bundle (node --enable-source-maps), as npm start runs it' },
      measurements: { bundle: rounds.bundle, tsx: rounds.tsx },
      notes: [
        "CPU is the runtime process's own utime + stime from /proc when /healthz first answered 200 (clock ticks of 10 ms); the wall clock includes the test fixture's /healthz polling.",
        'Both start on a fresh data folder and an empty project; the bundle is built before the run (scripts/build-runtime.mjs), so its build is not counted.',
      ],
    };
  },
};
