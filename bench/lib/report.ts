import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../server/runtime/paths';

export const GIB = 1024 ** 3;

/** 1073741824 → "1 GiB", 67108864 → "64 MiB": sizes as labels say them. */
export function formatSize(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', GIB],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(2))} ${unit}`;
  }
  return `${bytes} B`;
}
const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');

/** Our path against its reference, as one line of the table. */
export interface Comparison {
  /** The spec rule, e.g. "PERF-1". */
  rule: string;
  label: string;
  /** `score`: a share from 0 to 1 (precision, recall, F1). */
  unit: 'GiB/s' | 'ms' | 'MiB' | 'CPU-s' | 'score';
  /** Throughputs are better higher, latencies lower; the ratio is always ours / reference. */
  better: 'higher' | 'lower';
  oursName: string;
  referenceName: string;
  ours: number;
  reference: number;
  /** The spec's ratio target, or null for lines shown to explain the headline. */
  target: number | null;
}

export interface BenchOutcome {
  comparisons: Comparison[];
  parameters: Record<string, unknown>;
  /** Every round's raw numbers and anything else a reader needs to check the headline. */
  measurements: Record<string, unknown>;
  notes: string[];
}

export interface Benchmark {
  /** The file name without extension; also the results file's name. */
  name: string;
  run(progress: (line: string) => void): Promise<BenchOutcome>;
}

const ratioOf = (c: Comparison) => c.ours / c.reference;

export function verdict(c: Comparison): 'MET' | 'MISSED' | null {
  if (c.target === null) return null;
  const ratio = ratioOf(c);
  return (c.better === 'higher' ? ratio >= c.target : ratio <= c.target) ? 'MET' : 'MISSED';
}

const formatValue = (value: number, unit: Comparison['unit']) =>
  unit === 'score' ? value.toFixed(4) : `${value.toFixed(2)} ${unit}`;

export function formatComparison(c: Comparison): string {
  const target =
    c.target === null
      ? '(no target)'
      : `(target ${c.better === 'higher' ? '≥' : '≤'} ${c.target.toFixed(2)}) ${verdict(c)}`;
  return `${c.rule} ${c.label}: ${c.oursName} ${formatValue(c.ours, c.unit)}, ${c.referenceName} ${formatValue(c.reference, c.unit)}, ratio ${ratioOf(c).toFixed(2)} ${target}`;
}

function gitRevision(): string | null {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

/**
 * What one minor page fault costs here: fresh memory touched a page at a time. In some VMs this
 * is tens of microseconds, and paths that allocate large buffers or strings per request pay it
 * on every request while the reference paths reuse theirs.
 */
function pageFaultCost(): { microsecondsPerFault: number; faults: number } {
  const bytes = 64 * 1024 * 1024;
  const faultsBefore = process.resourceUsage().minorPageFault;
  const started = performance.now();
  const fresh = Buffer.allocUnsafeSlow(bytes);
  for (let i = 0; i < bytes; i += 4096) fresh[i] = 1;
  const micros = (performance.now() - started) * 1000;
  const faults = process.resourceUsage().minorPageFault - faultsBefore;
  return { microsecondsPerFault: faults > 0 ? Number((micros / faults).toFixed(2)) : 0, faults };
}

export function environment() {
  return {
    node: process.version,
    date: new Date().toISOString(),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? null,
    totalMemoryBytes: os.totalmem(),
    tmpdir: os.tmpdir(),
    git: gitRevision(),
    pageFault: pageFaultCost(),
  };
}

export interface MachineLoad {
  loadAverage: number[];
  /** Linux PSI: share of the last 10 s in which some task waited for a CPU (null where unavailable). */
  cpuPressureAvg10: number | null;
}

/** Other work on the machine skews every number here; the results file records how busy it was. */
export function machineLoad(): MachineLoad {
  let cpuPressureAvg10: number | null = null;
  try {
    const match = /^some avg10=([\d.]+)/m.exec(fs.readFileSync('/proc/pressure/cpu', 'utf8'));
    if (match) cpuPressureAvg10 = Number(match[1]);
  } catch {
    // Not Linux, or PSI is off.
  }
  return { loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))), cpuPressureAvg10 };
}

export function writeResult(
  name: string,
  outcome: BenchOutcome,
  durationSeconds: number,
  load: { before: MachineLoad; after: MachineLoad },
): string {
  const file = path.join(RESULTS_DIR, `${name}.json`);
  const json = {
    name,
    ...environment(),
    durationSeconds,
    machineLoad: load,
    results: outcome.comparisons.map((c) => ({ ...c, ratio: ratioOf(c), verdict: verdict(c) })),
    parameters: outcome.parameters,
    measurements: outcome.measurements,
    notes: outcome.notes,
  };
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(json, null, 2) + '\n');
  return file;
}

/** Size and round overrides for quick local runs; a published result uses the defaults. */
export function benchSettings(
  defaultBytes: number,
  defaultRounds: number,
): { totalBytes: number; rounds: number; overridden: boolean } {
  const bytes = process.env.HBCODE_BENCH_BYTES ? Number(process.env.HBCODE_BENCH_BYTES) : defaultBytes;
  const rounds = process.env.HBCODE_BENCH_ROUNDS ? Number(process.env.HBCODE_BENCH_ROUNDS) : defaultRounds;
  if (!Number.isSafeInteger(bytes) || bytes <= 0)
    throw new Error(`HBCODE_BENCH_BYTES must be a positive integer, not ${process.env.HBCODE_BENCH_BYTES}`);
  if (!Number.isSafeInteger(rounds) || rounds <= 0)
    throw new Error(`HBCODE_BENCH_ROUNDS must be a positive integer, not ${process.env.HBCODE_BENCH_ROUNDS}`);
  return { totalBytes: bytes, rounds, overridden: bytes !== defaultBytes || rounds !== defaultRounds };
}
