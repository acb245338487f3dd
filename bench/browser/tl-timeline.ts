/**
 * The agent timeline in Chromium (TL-1, TL-4), on the fixture page that renders the app's own
 * SessionView over its RpcClient (tests/e2e/timeline/timelinePage.ts), production React.
 *
 * Scrolling back: the timeline opens at the newest of 1,000 rows and the mouse wheel scrolls up
 * to the first, older pages read on the way; the longest main-thread task in a Chromium trace
 * is set against the 50 ms budget, and shown beside the same scroll through the same rows as
 * plain text, all in the page (what the browser's own scrolling costs).
 *
 * Diffs: a file change row of a 5,000-line diff and of a 50-line diff, mounted alternately in
 * the same page; each time ends when the first diff line is in the DOM and a frame was drawn.
 */
import type { CDPSession, Page } from 'playwright-core';
import { z } from 'zod';
import { openTimelinePage } from '../../tests/e2e/timeline/timelinePageHarness';
import { launchChromium } from '../../tests/fixtures/browser';
import { waitUntil } from '../../tests/fixtures/waitUntil';
import type { BenchModes } from '../../tests/e2e/timeline/benchModes';
import { manyRows } from '../../tests/e2e/timeline/timelineFixture';
import { benchSettings, type Benchmark, type BenchOutcome } from '../lib/report';
import { median, rotateRounds } from '../lib/rounds';

const ROWS = 1000;
const TASK_BUDGET_MS = 50;
const WHEEL_PX = 400;
const BIG_DIFF_LINES = 5000;
const SMALL_DIFF_LINES = 50;

const TraceEventSchema = z.object({
  name: z.string(),
  ph: z.string(),
  dur: z.number().optional(),
  pid: z.number(),
  tid: z.number(),
  args: z.object({ name: z.unknown().optional() }).optional(),
});
type TraceEvent = z.infer<typeof TraceEventSchema>;

/** The renderer main thread's tasks (RunTask) in a trace, longest first, in ms. */
function mainThreadTasks(events: TraceEvent[]): number[] {
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  if (!main) throw new Error('the trace has no renderer main thread');
  return events
    .filter(
      (e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.name === 'RunTask' && e.dur !== undefined,
    )
    .map((e) => e.dur! / 1000)
    .sort((a, b) => b - a);
}

async function traced(cdp: CDPSession, work: () => Promise<void>): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (data) => events.push(...z.array(TraceEventSchema).parse(data.value)));
  const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.start', {
    categories: 'toplevel,disabled-by-default-devtools.timeline',
    transferMode: 'ReportEvents',
  });
  await work();
  await cdp.send('Tracing.end');
  await done;
  return events;
}

/** Wheels the timeline up to its first row; resolves with the wheel steps it took. */
async function wheelToTop(page: Page, firstRowShown: () => Promise<boolean>): Promise<number> {
  await page.locator('[data-testid="timeline"]').hover();
  for (let step = 1; step <= 2000; step++) {
    await page.mouse.wheel(0, -WHEEL_PX);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    const top = await page.evaluate(() => document.querySelector('[data-testid="timeline"]')!.scrollTop);
    if (top === 0 && (await firstRowShown())) return step;
  }
  throw new Error('the wheel never reached the first row');
}

async function scrollBack(
  page: Page,
  firstRowShown: () => Promise<boolean>,
): Promise<{ tasks: number[]; steps: number }> {
  const cdp = await page.context().newCDPSession(page);
  let steps = 0;
  const events = await traced(cdp, async () => {
    steps = await wheelToTop(page, firstRowShown);
  });
  await cdp.detach();
  return { tasks: mainThreadTasks(events), steps };
}

export const tlTimeline: Benchmark = {
  name: 'tl-timeline',
  async run(progress): Promise<BenchOutcome> {
    const { rounds } = benchSettings(1, 15);
    const browser = await launchChromium();
    try {
      const viewport = { viewport: { width: 1280, height: 800 } };
      progress(`   scrolling back through ${ROWS} rows`);
      const ours = await openTimelinePage(browser, viewport, `?fixture=many&count=${ROWS}`);
      const { rows } = manyRows(ROWS);
      await waitUntil(
        () => ours.page.locator(`.timeline-item[data-row-id="${rows.at(-1)!.id}"]`).count(),
        'the newest row shows',
      );
      // The scroll ends at the first row with its body shown and no row left waiting for its body (useRowReveal).
      const allShown = async () =>
        (await ours.page.locator(`.timeline-item[data-row-id="${rows[0]!.id}"]:not([data-pending])`).count()) > 0 &&
        (await ours.page.locator('.timeline-item[data-pending]').count()) === 0;
      const scrolled = await scrollBack(ours.page, allShown);
      await ours.context.close();
      const plain = await openTimelinePage(
        browser,
        viewport,
        `?fixture=plain&count=${ROWS}`,
        '[data-testid="timeline"] .card',
      );
      await plain.page.evaluate(() => {
        const box = document.querySelector('[data-testid="timeline"]')!;
        box.scrollTop = box.scrollHeight;
      });
      const reference = await scrollBack(plain.page, async () => true);
      await plain.context.close();
      progress(
        `   longest task ${scrolled.tasks[0]!.toFixed(1)} ms over ${scrolled.steps} wheel steps (plain rows: ${reference.tasks[0]!.toFixed(1)} ms)`,
      );

      const bench = await openTimelinePage(browser, viewport, '?fixture=bench', '#root');
      const renderDiff = (lines: number) =>
        bench.page.evaluate(
          (lines) => (globalThis as unknown as { __bench: BenchModes }).__bench.renderDiff(lines),
          lines,
        );
      // Warm: the first mount loads the page's code paths; neither contender gets it.
      await renderDiff(SMALL_DIFF_LINES);
      await renderDiff(BIG_DIFF_LINES);
      const diffs = await rotateRounds(
        rounds,
        { big: () => renderDiff(BIG_DIFF_LINES), small: () => renderDiff(SMALL_DIFF_LINES) },
        progress,
        (ms) => `${ms.toFixed(1)} ms`,
      );
      await bench.context.close();

      const overBudget = scrolled.tasks.filter((t) => t > TASK_BUDGET_MS);
      return {
        comparisons: [
          {
            rule: 'TL-4',
            label: `longest main-thread task scrolling back through ${ROWS} rows`,
            unit: 'ms',
            better: 'lower',
            oursName: 'timeline',
            referenceName: 'budget',
            ours: scrolled.tasks[0]!,
            reference: TASK_BUDGET_MS,
            target: 1,
          },
          {
            rule: 'TL-4',
            label: `longest main-thread task, same scroll`,
            unit: 'ms',
            better: 'lower',
            oursName: 'timeline',
            referenceName: `${ROWS} plain text rows, all in the page`,
            ours: scrolled.tasks[0]!,
            reference: reference.tasks[0]!,
            target: null,
          },
          {
            rule: 'TL-1',
            label: 'first lines of a diff row on screen',
            unit: 'ms',
            better: 'lower',
            oursName: `${BIG_DIFF_LINES}-line diff`,
            referenceName: `${SMALL_DIFF_LINES}-line diff`,
            ours: median(diffs.big),
            reference: median(diffs.small),
            target: 1.5,
          },
        ],
        parameters: {
          rows: ROWS,
          wheelPx: WHEEL_PX,
          rounds,
          bigDiffLines: BIG_DIFF_LINES,
          smallDiffLines: SMALL_DIFF_LINES,
          viewport: viewport.viewport,
        },
        measurements: {
          wheelSteps: scrolled.steps,
          longestTasksMs: scrolled.tasks.slice(0, 10),
          tasksOverBudget: overBudget.length,
          referenceLongestTasksMs: reference.tasks.slice(0, 10),
          bigDiffMs: diffs.big,
          smallDiffMs: diffs.small,
        },
        notes: [
          "Tasks are the renderer main thread's RunTask events of a Chromium trace (categories toplevel and devtools.timeline) taken while the wheel scrolled up, one animation frame per step; older pages (100 rows each) are answered in the page, so the time is the app's, not a network's.",
          "A diff row's time runs from React rendering the row to the first diff line in the DOM and the next animation frame; highlighting follows in the worker and is not waited for. The row carries the first 64 KiB of the diff, as a runtime sends it.",
        ],
      };
    } finally {
      await browser.close();
    }
  },
};
