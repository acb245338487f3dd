/**
 * `npm run bench [-- NAME…]`: runs the side-by-side benchmarks (PERF-1…PERF-7) one after the
 * other, writes bench/results/<name>.json for each, and prints the table. `out2`, `file2`,
 * `acc6` and `sec9-preview-memory` are the full-scale runs of checks the tests make at small scale; they have no reference. A NAME picks the
 * benchmarks whose file name starts with it (`perf1`, `perf2-output-read`).
 */
import os from 'node:os';
import path from 'node:path';
import { perf1OutputIngest } from './perf1-output-ingest';
import { perf2OutputRead } from './perf2-output-read';
import { perf7PreviewLoad } from './perf7-preview-load';
import { sec9PreviewChurn } from './sec9-preview-churn';
import { perf3FileTransfer } from './perf3-file-transfer';
import { perf6Highlight } from './perf6-highlight';
import { perf5Markdown } from './perf5-markdown';
import { agentHistoryRead } from './agent-history-read';
import { claudeStop } from './claude-stop';
import { claudeHost } from './claude-host';
import { loadConcurrentCommands } from './load-concurrent-commands';
import { timelineOpen } from './timeline-open';
import { codexStop } from './codex-stop';
import { att1Upload } from './att1-upload';
import { readerExtraction } from './reader-extraction';
import { relayNode } from './relay-node';
import { relayPassthrough } from './relay-passthrough';
import { outputFind } from './output-find';
import { runtimeStart } from './runtime-start';
import { termEcho } from './term-echo';
import { out2RandomKills } from './out2-random-kills';
import { file2ReadGib } from './file2-read-gib';
import { acc6SteerCrash } from './acc6-steer-crash';
import { file10MediaRenditions } from './file10-media-renditions';
import {
  environment,
  formatComparison,
  machineLoad,
  verdict,
  writeResult,
  type Benchmark,
  type Comparison,
} from './lib/report';
import { removeAllTempDirs } from './lib/tempDirs';
import { buildBundles } from '../tests/fixtures/bundledPrograms';

/** Above this CPU pressure (share of the last 10 s some task waited for a CPU) the run is flagged. */
const BUSY_CPU_PRESSURE = 20;

interface BenchmarkEntry {
  name: string;
  load(): Promise<Benchmark>;
}

/**
 * Benchmarks that drive Chromium live in bench/browser/: their page callbacks need the DOM types,
 * so they are type-checked in the e2e realm (tsconfig.e2e.json) and loaded here by name.
 */
function browserBenchmark(name: string, exportName: string): BenchmarkEntry {
  return {
    name,
    async load() {
      const module = (await import(`./browser/${name}.ts`)) as Record<string, Benchmark | undefined>;
      const bench = module[exportName];
      if (!bench) throw new Error(`bench/browser/${name}.ts exports no ${exportName}`);
      return bench;
    },
  };
}

const nodeBenchmark = (bench: Benchmark): BenchmarkEntry => ({ name: bench.name, load: async () => bench });

const BENCHMARKS: BenchmarkEntry[] = [
  nodeBenchmark(perf1OutputIngest),
  nodeBenchmark(perf2OutputRead),
  nodeBenchmark(perf3FileTransfer),
  browserBenchmark('perf4-viewer', 'perf4Viewer'),
  nodeBenchmark(perf5Markdown),
  nodeBenchmark(perf6Highlight),
  nodeBenchmark(perf7PreviewLoad),
  nodeBenchmark(agentHistoryRead),
  nodeBenchmark(claudeStop),
  nodeBenchmark(claudeHost),
  nodeBenchmark(sec9PreviewChurn),
  nodeBenchmark(loadConcurrentCommands),
  nodeBenchmark(timelineOpen),
  nodeBenchmark(codexStop),
  browserBenchmark('tl-timeline', 'tlTimeline'),
  browserBenchmark('tl-open-reload', 'tlOpenReload'),
  nodeBenchmark(att1Upload),
  browserBenchmark('ux5-first-visit', 'ux5FirstVisit'),
  browserBenchmark('stop-phone', 'stopPhone'),
  browserBenchmark('phone-taps', 'phoneTaps'),
  browserBenchmark('sec9-preview-memory', 'sec9PreviewMemory'),
  nodeBenchmark(readerExtraction),
  nodeBenchmark(relayNode),
  nodeBenchmark(relayPassthrough),
  nodeBenchmark(outputFind),
  nodeBenchmark(runtimeStart),
  nodeBenchmark(termEcho),
  browserBenchmark('term-flood', 'termFlood'),
  browserBenchmark('term-echo-phone', 'termEchoPhone'),
  nodeBenchmark(out2RandomKills),
  nodeBenchmark(file2ReadGib),
  nodeBenchmark(acc6SteerCrash),
  nodeBenchmark(file10MediaRenditions),
];

function select(names: string[]): BenchmarkEntry[] {
  if (names.length === 0) return BENCHMARKS;
  const chosen = BENCHMARKS.filter((b) => names.some((n) => b.name.startsWith(n)));
  if (chosen.length === 0)
    throw new Error(`No benchmark matches ${names.join(', ')}. Known: ${BENCHMARKS.map((b) => b.name).join(', ')}`);
  return chosen;
}

const progress = (line: string) => process.stderr.write(line + '\n');

async function main(): Promise<number> {
  const chosen = select(process.argv.slice(2));
  // The benches start the runtime, the relay and the hosts from their bundle, as npm start does.
  await buildBundles();
  const lines: Comparison[] = [];
  for (const entry of chosen) {
    const bench = await entry.load();
    progress(`== ${bench.name}`);
    const before = machineLoad();
    const busy =
      before.cpuPressureAvg10 === null
        ? before.loadAverage[0]! > os.cpus().length
        : before.cpuPressureAvg10 > BUSY_CPU_PRESSURE;
    if (busy) {
      progress(
        `   WARNING: the machine is busy (load average ${before.loadAverage.join(' ')}, CPU pressure ${before.cpuPressureAvg10}%): these numbers will be skewed`,
      );
    }
    const started = performance.now();
    const outcome = await bench.run(progress);
    const seconds = (performance.now() - started) / 1000;
    const file = writeResult(bench.name, outcome, seconds, { before, after: machineLoad() });
    progress(`   ${bench.name} took ${seconds.toFixed(1)} s; wrote ${path.relative(process.cwd(), file)}`);
    lines.push(...outcome.comparisons);
  }
  process.stdout.write('\n' + lines.map(formatComparison).join('\n') + '\n');
  const env = environment();
  process.stdout.write(
    `(${env.node}, ${env.cpus} × ${env.cpuModel}, one minor page fault ≈ ${env.pageFault.microsecondsPerFault} µs, load average now ${machineLoad().loadAverage.join(' ')})\n`,
  );
  const missed = lines.filter((c) => verdict(c) === 'MISSED').length;
  if (missed > 0) process.stdout.write(`${missed} target(s) missed.\n`);
  // A missed target is a result, not a failure of the harness: the exit code stays 0.
  return 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    removeAllTempDirs();
    process.exit(130);
  });
}

main().then(
  (code) => {
    removeAllTempDirs();
    process.exit(code);
  },
  (error: unknown) => {
    removeAllTempDirs();
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
