// Prints the run's 20 slowest test files and the time per project (lane: unit, integration,
// agents, relay, browser; vitest.config.ts) from the file times beside vitest's JSON report
// (tests/fixtures/fileTimesReporter.ts), then one plain closing line,
// "tests: N passed, N failed", from the JSON report; exits 1 when it is missing, when anything
// failed, or when no test ran.
import fs from 'node:fs';
import path from 'node:path';

const SLOWEST = 20;

const file = process.argv[2];
let report;
try {
  report = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch {
  console.log(`tests: no report at ${file}`);
  process.exit(1);
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

function printTimes(times) {
  const files = [...times.files].sort((a, b) => b.ms - a.ms);
  const width = Math.max(0, ...files.slice(0, SLOWEST).map((f) => f.project.length));
  console.log(`slowest test files (${Math.min(SLOWEST, files.length)} of ${files.length}):`);
  for (const f of files.slice(0, SLOWEST)) {
    console.log(`  ${seconds(f.ms).padStart(8)}  ${f.project.padEnd(width)}  ${f.file}${f.failed ? '  (failed)' : ''}`);
  }
  const lanes = new Map();
  for (const f of files) {
    const lane = lanes.get(f.project) ?? { files: 0, ms: 0, startMs: Infinity, endMs: -Infinity };
    lane.files += 1;
    lane.ms += f.ms;
    if (f.startMs !== undefined) lane.startMs = Math.min(lane.startMs, f.startMs);
    if (f.endMs !== undefined) lane.endMs = Math.max(lane.endMs, f.endMs);
    lanes.set(f.project, lane);
  }
  console.log(
    `per lane (project): files, file times summed over its workers, and its span from its first file's start to its last file's end; the run took ${seconds(times.wallMs)}`,
  );
  const nameWidth = Math.max(0, ...[...lanes.keys()].map((name) => name.length));
  for (const [name, lane] of [...lanes].sort((a, b) => b[1].ms - a[1].ms)) {
    const span =
      lane.endMs >= lane.startMs
        ? `  ${seconds(lane.endMs - lane.startMs).padStart(8)} from ${seconds(lane.startMs)} to ${seconds(lane.endMs)}`
        : '';
    console.log(
      `  ${name.padEnd(nameWidth)}  ${String(lane.files).padStart(4)} files  ${seconds(lane.ms).padStart(8)} summed${span}`,
    );
  }
}

try {
  printTimes(JSON.parse(fs.readFileSync(path.join(path.dirname(file), 'file-times.json'), 'utf8')));
} catch {
  console.log(`(no file times beside ${file})`);
}

const passed = report.numPassedTests ?? 0;
const failed = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
