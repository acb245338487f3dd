import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildBundle } from '../../../scripts/build-runtime.mjs';
import { REPO_ROOT } from '../../../server/runtime/paths';
import { makeTempDir } from '../../fixtures/tempDir';

const PROBE = 'tests/fixtures/bundleProbe.ts';

describe('PERF-9 the runtime bundle (scripts/build-runtime.mjs)', () => {
  it('PERF-9 a bundle built anywhere finds the repository, starts bundled children, names the .ts files in stacks, and rebuilds only when a source changed', async () => {
    const outdir = makeTempDir('hbcode-bundle-');
    expect(await buildBundle({ probe: PROBE }, { outdir, ifStale: true })).toBe(true);

    const run = spawnSync(process.execPath, ['--enable-source-maps', path.join(outdir, 'probe.mjs')], {
      encoding: 'utf8',
    });
    const printed = JSON.parse(run.stdout.split('\n')[0]!) as { root: string; host: { file: string; args: string[] } };
    // import.meta.url keeps naming the source's own place, wherever the bundle lies.
    expect(printed.root).toBe(REPO_ROOT);
    expect(printed.host).toEqual({
      file: process.execPath,
      args: ['--enable-source-maps', path.join(REPO_ROOT, 'dist', 'claudeHost.mjs')],
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('probe failure');
    expect(run.stderr).toMatch(/tests\/fixtures\/bundleProbe\.ts:\d+/);

    expect(await buildBundle({ probe: PROBE }, { outdir, ifStale: true })).toBe(false);
    // Another set of entries into the same folder is not the build the stamp describes.
    expect(await buildBundle({ probe: PROBE, other: PROBE }, { outdir, ifStale: true })).toBe(true);
    expect(await buildBundle({ probe: PROBE, other: PROBE }, { outdir, ifStale: true })).toBe(false);
    // A source the build read, saved again: stale.
    const now = new Date();
    fs.utimesSync(path.join(REPO_ROOT, PROBE), now, now);
    expect(await buildBundle({ probe: PROBE, other: PROBE }, { outdir, ifStale: true })).toBe(true);
    // A lost output file: stale.
    fs.rmSync(path.join(outdir, 'other.mjs'));
    expect(await buildBundle({ probe: PROBE, other: PROBE }, { outdir, ifStale: true })).toBe(true);
  });
});
