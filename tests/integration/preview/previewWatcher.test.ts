import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PreviewWatcher } from '../../../server/runtime/preview/previewWatcher';

const CHURN_MS = 3000;
/** SEC-9: the most refreshes one preview may get in a second. */
const REFRESHES_PER_SECOND = 1;

async function until(check: () => boolean, message: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${message}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Rewrites files in `folder` without pause for about CHURN_MS (bounded in count too), as a build in watch mode does. */
async function churn(folder: string): Promise<{ writes: number; elapsedMs: number }> {
  const started = Date.now();
  let writes = 0;
  while (Date.now() - started < CHURN_MS && writes < 100_000) {
    for (let i = 0; i < 20; i++, writes++)
      fs.writeFileSync(path.join(folder, `out-${writes % 500}.js`), String(writes));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return { writes, elapsedMs: Date.now() - started };
}

describe('SEC-9 PRV-6 file churn in a previewed folder', () => {
  let folder: string;
  let watcher: PreviewWatcher | null = null;
  afterEach(() => {
    watcher?.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('SEC-9 thousands of writes give at most one refresh a second, one more after the churn ends, and later changes are still seen', async () => {
    folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-churn-')));
    fs.writeFileSync(path.join(folder, 'index.html'), '<p>page</p>');
    const refreshes: number[] = [];
    watcher = new PreviewWatcher(folder, () => refreshes.push(Date.now()));
    watcher.watchFolder(folder);
    const { writes, elapsedMs } = await churn(folder);
    const churnEnded = Date.now();
    expect(writes).toBeGreaterThan(200);
    // The churn's last changes are not lost: a refresh follows its end.
    await until(() => refreshes.some((at) => at >= churnEnded), 'a refresh after the churn ended');
    const allowed = Math.ceil((elapsedMs / 1000) * REFRESHES_PER_SECOND) + 2;
    console.info(`SEC-9 ${writes} writes in ${elapsedMs} ms gave ${refreshes.length} refreshes (allowed ${allowed})`);
    expect(refreshes.length).toBeLessThanOrEqual(allowed);
    // Quiet again: one edit of the page is noticed (a watch closed for flooding has been reopened).
    await until(() => Date.now() - refreshes.at(-1)! > 1000 / REFRESHES_PER_SECOND, 'the rate limit has passed');
    const settledCount = refreshes.length;
    await until(
      () => {
        fs.writeFileSync(path.join(folder, 'index.html'), `<p>page ${Date.now()}</p>`);
        return refreshes.length > settledCount;
      },
      'an edit after the churn gives a refresh',
      40_000,
    );
  }, 90_000);
});
