import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileTimes } from '../../fixtures/fileTimesReporter';
import { makeTempDir } from '../../fixtures/tempDir';
import { REPO_ROOT } from '../../../server/runtime/paths';

function summarize(report: object, times?: FileTimes): { lines: string[]; status: number | null } {
  const dir = makeTempDir('hbcode-summary-');
  fs.writeFileSync(path.join(dir, 'vitest.json'), JSON.stringify(report));
  if (times) fs.writeFileSync(path.join(dir, 'file-times.json'), JSON.stringify(times));
  const result = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, 'scripts', 'test-summary.mjs'), path.join(dir, 'vitest.json')],
    { encoding: 'utf8' },
  );
  return { lines: result.stdout.trimEnd().split('\n'), status: result.status };
}

describe('the test summary', () => {
  it('prints the 20 slowest files, slowest first, the time per project, and the plain closing line last', () => {
    const files = Array.from({ length: 25 }, (_, i) => ({
      file: `tests/f${i}.test.ts`,
      project: i % 2 ? 'browser' : 'node',
      ms: (i + 1) * 1000,
      tests: 1,
      failed: i === 24,
    }));
    const { lines, status } = summarize({ numPassedTests: 24, numFailedTests: 1 }, { wallMs: 90_000, files });
    expect(lines[0]).toBe('slowest test files (20 of 25):');
    const listed = lines.slice(1, 21);
    expect(listed[0]).toMatch(/^\s+25\.0 s {2}node {5}tests\/f24\.test\.ts {2}\(failed\)$/);
    expect(listed.map((line) => /f(\d+)\.test/.exec(line)![1])).toEqual(
      Array.from({ length: 20 }, (_, i) => String(24 - i)),
    );
    // node: f0, f2, … f24 (13 files, 1+3+…+25 s); browser: f1 … f23 (12 files, 2+4+…+24 s).
    expect(lines[21]).toBe(
      "per lane (project): files, file times summed over its workers, and its span from its first file's start to its last file's end; the run took 90.0 s",
    );
    expect(lines.slice(22, 24)).toEqual([
      '  node       13 files   169.0 s summed',
      '  browser    12 files   156.0 s summed',
    ]);
    expect(lines.at(-1)).toBe('tests: 24 passed, 1 failed');
    expect(status).toBe(1);
  });

  it("gives each lane its span, from its first file handed to a worker to its last file's end", () => {
    const files = [
      { file: 'tests/unit/a.test.ts', project: 'unit', ms: 3000, tests: 1, failed: false, startMs: 1000, endMs: 4000 },
      { file: 'tests/unit/b.test.ts', project: 'unit', ms: 2000, tests: 1, failed: false, startMs: 1500, endMs: 3500 },
      {
        file: 'tests/e2e/c.test.ts',
        project: 'browser',
        ms: 40_000,
        tests: 2,
        failed: false,
        startMs: 5000,
        endMs: 45_000,
      },
    ];
    const { lines, status } = summarize({ numPassedTests: 4, numFailedTests: 0 }, { wallMs: 50_000, files });
    expect(lines.slice(-3, -1)).toEqual([
      '  browser     1 files    40.0 s summed    40.0 s from 5.0 s to 45.0 s',
      '  unit        2 files     5.0 s summed     3.0 s from 1.0 s to 4.0 s',
    ]);
    expect(lines.at(-1)).toBe('tests: 4 passed, 0 failed');
    expect(status).toBe(0);
  });

  it('without file times still ends with the closing line, and passes when nothing failed', () => {
    const { lines, status } = summarize({ numPassedTests: 3, numFailedTests: 0 });
    expect(lines.at(-1)).toBe('tests: 3 passed, 0 failed');
    expect(status).toBe(0);
  });
});
