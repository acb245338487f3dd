// Prints the run's 20 slowest test files and the time per project (lane) from the file times
// beside vitest's JSON report (tests/fixtures/fileTimesReporter.ts), then one plain closing line,
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
  const projects = new Map();
  for (const f of files) {
    const total = projects.get(f.project) ?? { files: 0, ms: 0 };
    projects.set(f.project, { files: total.files + 1, ms: total.ms + f.ms });
  }
  const lanes = [...projects].sort((a, b) => b[1].ms - a[1].ms).map(([name, t]) => `${name} ${t.files} files ${seconds(t.ms)}`);
  console.log(`per project (file times summed over its workers): ${lanes.join(', ')}; the run took ${seconds(times.wallMs)}`);
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
