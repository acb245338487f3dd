/**
 * SEC-9 PRV-4 at full scale: four parallel fetches of a 64 MiB previewed page, read in the
 * runtime's default 4 MiB pieces, stream through the app in bounded memory. The test
 * (tests/e2e/previewLargeHtml.test.ts) checks the same bound with a 16 MiB page in 1 MiB pieces.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FETCHER_PAGE, parallelFetchMemory, writeBigHtml } from '../../tests/e2e/largePreviewPage';
import { openPreview, previewedFrame, startPairedPreviewApp } from '../../tests/e2e/previewHarness';
import { benchSettings, type Benchmark, type BenchOutcome } from '../lib/report';
import { median } from '../lib/rounds';

const MIB = 1024 * 1024;
const DEFAULT_PAGE_BYTES = 64 * MIB;
const PARALLEL_FETCHES = 4;
const DEFAULT_ROUNDS = 3;

export const sec9PreviewMemory: Benchmark = {
  name: 'sec9-preview-memory',
  async run(progress): Promise<BenchOutcome> {
    const { totalBytes: pageBytes, rounds } = benchSettings(DEFAULT_PAGE_BYTES, DEFAULT_ROUNDS);
    const app = await startPairedPreviewApp(
      { 'fetcher.html': FETCHER_PAGE },
      { prepare: (dir) => writeBigHtml(path.join(dir, 'big.html'), pageBytes), chromiumArgs: [] },
    );
    try {
      const size = fs.statSync(path.join(app.project, 'big.html')).size;
      const growthMiB: number[] = [];
      const seconds: number[] = [];
      for (let round = 0; round < rounds; round++) {
        // Each round in a fresh page load, so one round's garbage does not count in the next.
        if (round > 0) await app.page.reload();
        await openPreview(app.page, app.runtime, app.project, 'fetcher.html');
        const frame = await previewedFrame(app.page, '/fetcher.html');
        const started = performance.now();
        const { baseline, peak, answers } = await parallelFetchMemory(app.page, frame, PARALLEL_FETCHES);
        seconds.push((performance.now() - started) / 1000);
        for (const answer of answers) {
          if (answer.bytes <= size || !answer.tail.includes('</body></html>\n<script>'))
            throw new Error(
              `a fetch read ${answer.bytes} bytes of ${size}, ending ${JSON.stringify(answer.tail.slice(-40))}`,
            );
        }
        growthMiB.push((peak - baseline) / MIB);
        progress(
          `   round ${round + 1}: peak growth ${growthMiB.at(-1)!.toFixed(1)} MiB in ${seconds.at(-1)!.toFixed(1)} s`,
        );
      }
      const boundMiB = (PARALLEL_FETCHES * size) / 2 / MIB;
      const worst = Math.max(...growthMiB);
      if (worst >= boundMiB)
        throw new Error(`the app's memory grew ${worst.toFixed(1)} MiB, over the bound of ${boundMiB} MiB`);
      return {
        comparisons: [],
        parameters: { pageBytes: size, parallelFetches: PARALLEL_FETCHES, rounds },
        measurements: {
          peakGrowthMiB: growthMiB,
          medianSeconds: median(seconds),
          mibPerSecond: (PARALLEL_FETCHES * size) / MIB / median(seconds),
        },
        notes: [
          `Every fetch read the whole decorated page; the app page's heap and array buffers grew at most ${worst.toFixed(1)} MiB (the bound is ${boundMiB} MiB, half the four pages).`,
        ],
      };
    } finally {
      await app.close();
    }
  },
};
