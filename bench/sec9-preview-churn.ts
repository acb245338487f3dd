import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startRuntimeProcess } from '../tests/fixtures/runtimeProcess';
import { benchSettings, type Benchmark, type BenchOutcome } from './lib/report';
import { median, percentile } from './lib/rounds';
import { makeTempDir, removeTempDir } from './lib/tempDirs';

const DEFAULT_CALLS = 200;
const PAGE_BYTES = 2 * 1024 * 1024;

/** Rewrites 500 files in `folder` without pause until killed, as a build in watch mode does. */
const CHURN_SCRIPT = `const fs = require('fs'); const path = require('path'); const dir = process.argv[1]; let i = 0;
for (;;) { fs.writeFileSync(path.join(dir, 'out-' + (i % 500) + '.js'), String(i)); i++; }`;

/**
 * SEC-9: what file churn in a previewed folder costs every client. One client plays the app: it
 * previews a 2 MiB page and reads it again on every `preview.changed`, as the pane reloads.
 * Another makes cheap calls (`projects.list`) and times them, with the folder quiet and then
 * while a child process rewrites files in it without pause.
 */
export const sec9PreviewChurn: Benchmark = {
  name: 'sec9-preview-churn',
  async run(progress): Promise<BenchOutcome> {
    const { rounds: calls, overridden } = benchSettings(1, DEFAULT_CALLS);
    const site = makeTempDir('hbcode-churn-bench-');
    fs.writeFileSync(
      path.join(site, 'index.html'),
      `<!doctype html><html><head></head><body>${'x'.repeat(PAGE_BYTES)}</body></html>`,
    );
    const runtime = await startRuntimeProcess({ projectDirs: [site] });
    const app = await runtime.connect();
    const caller = await runtime.connect();
    let refreshes = 0;
    const previewId = 'c'.repeat(32);
    const readPage = async () => {
      for (let offset: number | null = 0; offset !== null;) {
        const answer: { status: number; nextOffset?: number | null } = await app.call('files.readHtmlPreviewResource', {
          previewId,
          path: '/index.html',
          offset,
        });
        offset = answer.status === 200 ? (answer.nextOffset ?? null) : null;
      }
    };
    app.onNotification('preview.changed', () => {
      refreshes += 1;
      void readPage().catch(() => undefined);
    });
    const time = async (count: number): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        const started = performance.now();
        await caller.call('projects.list');
        times.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return times;
    };
    try {
      await app.call('preview.open', { previewId, projectDirectory: site, path: 'index.html' });
      await readPage();
      progress('quiet folder');
      const quiet = await time(calls);
      progress('churning folder');
      const churn = spawn(process.execPath, ['-e', CHURN_SCRIPT, site], { stdio: 'ignore' });
      const refreshesBefore = refreshes;
      const churnStarted = Date.now();
      let busy: number[];
      try {
        await new Promise((resolve) => setTimeout(resolve, 500));
        busy = await time(calls);
      } finally {
        churn.kill('SIGKILL');
      }
      const churnSeconds = (Date.now() - churnStarted) / 1000;
      const summary = (times: number[]) => ({
        median: median(times),
        p95: percentile(times, 0.95),
        max: Math.max(...times),
      });
      return {
        comparisons: [
          {
            rule: 'SEC-9',
            label: 'projects.list while a previewed folder churns (median)',
            unit: 'ms',
            better: 'lower',
            oursName: 'churning',
            referenceName: 'quiet',
            ours: median(busy),
            reference: median(quiet),
            target: 2,
          },
          {
            rule: 'SEC-9',
            label: 'projects.list while a previewed folder churns (max)',
            unit: 'ms',
            better: 'lower',
            oursName: 'churning',
            referenceName: 'quiet',
            ours: Math.max(...busy),
            reference: Math.max(...quiet),
            target: null,
          },
        ],
        parameters: { calls, overridden, pageBytes: PAGE_BYTES },
        measurements: {
          quiet: summary(quiet),
          churning: summary(busy),
          refreshesDuringChurn: refreshes - refreshesBefore,
          churnSeconds,
        },
        notes: [
          'The churn is a child process rewriting 500 files in the previewed folder as fast as it can; the app client rereads the 2 MiB page on every preview.changed, as the pane reloads.',
        ],
      };
    } finally {
      app.close();
      caller.close();
      await runtime.stop();
      removeTempDir(site);
    }
  },
};
