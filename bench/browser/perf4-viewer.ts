/**
 * PERF-4: the output viewer in Chromium on a 1 GiB output. Our path is the real app: the time
 * from a click on the command row to its first lines on screen, and from a click on "End" to
 * the last line on screen. The reference, in the same page and over the same kind of
 * authenticated WebSocket, fetches one 256 KiB page with `run.chatCommandOutputRead` and renders
 * it as text. Both end when the lines are in the DOM and the next frame has been drawn. Then the
 * viewer is scrolled end to end (the scrubber through the whole output, a few screens of
 * scrolling at each stop) and the page's JS heap is sampled throughout.
 */
import type { CDPSession, Page } from 'playwright-core';
import { launchChromium } from '../../tests/fixtures/browser';
import { startRuntimeProcess } from '../../tests/fixtures/runtimeProcess';
import {
  commandRow,
  createShellSession,
  pairThroughLink,
  sendCommand,
  startupPairingCode,
} from '../../tests/e2e/appHarness';
import { waitUntil } from '../../tests/fixtures/waitUntil';
import { benchSettings, formatSize, GIB, type Benchmark, type BenchOutcome } from '../lib/report';
import { median } from '../lib/rounds';
import { openReferenceSocket, referencePage } from './referencePage';

const LINE_BYTES = 14; // "row 000000001\n"
const rowText = (n: number) => `row ${String(n).padStart(9, '0')}`;
const HEAP_BUDGET_MIB = 64;
const SCRUB_STOPS = 200;
/** Every this many stops the heap is also measured after a full GC: what the page really holds. */
const LIVE_HEAP_EVERY = 10;

/** Runs `act` in the page and resolves with the ms until a line with `text` is on screen and a frame was drawn. */
function timeUntilLineShows(page: Page, act: 'open-row' | 'end', text: string): Promise<number> {
  return page.evaluate(
    ({ act, text }) =>
      new Promise<number>((resolve, reject) => {
        const shows = () => {
          const box = document.querySelector('[data-testid="output"]');
          if (!box) return false;
          const view = box.getBoundingClientRect();
          return [...box.querySelectorAll<HTMLElement>('[data-offset]')].some((el) => {
            if (el.textContent !== text) return false;
            const r = el.getBoundingClientRect();
            return r.top >= view.top - 1 && r.bottom <= view.bottom + 1;
          });
        };
        const timeout = setTimeout(() => reject(new Error(`"${text}" never showed`)), 60_000);
        let started = 0;
        const observer = new MutationObserver(() => {
          if (!shows()) return;
          observer.disconnect();
          requestAnimationFrame(() => {
            clearTimeout(timeout);
            resolve(performance.now() - started);
          });
        });
        observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
        started = performance.now();
        const target =
          act === 'open-row'
            ? document.querySelector<HTMLElement>('[data-row="command"]')
            : [...document.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent === 'End');
        if (!target) reject(new Error(`nothing to click for ${act}`));
        target?.click();
      }),
    { act, text },
  );
}

async function heapMiB(cdp: CDPSession): Promise<number> {
  const usage = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  return usage.usedSize / 1024 / 1024;
}

/** The first visible line's number in the viewer, or null before any line shows. */
function firstVisibleLine(page: Page): Promise<number | null> {
  return page.evaluate(() => {
    const box = document.querySelector('[data-testid="output"]');
    if (!box) return null;
    const view = box.getBoundingClientRect();
    const shown = [...box.querySelectorAll<HTMLElement>('[data-offset]')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.bottom > view.top && r.top < view.bottom;
      })
      .map((el) => Number(el.dataset.offset));
    return shown.length ? Math.min(...shown) / 14 + 1 : null;
  });
}

export const perf4Viewer: Benchmark = {
  name: 'perf4-viewer',
  async run(progress): Promise<BenchOutcome> {
    const { totalBytes, rounds } = benchSettings(GIB, 5);
    const lines = Math.floor(totalBytes / LINE_BYTES);
    const command = `seq -f 'row %09.0f' 1 ${lines}`;
    const runtime = await startRuntimeProcess();
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      // NOTE: the bench runs under tsx, whose transform keeps function names by wrapping them in
      // a `__name` helper; functions handed to page.evaluate carry those calls into the page.
      await page.addInitScript({ content: 'globalThis.__name = (fn) => fn;' });
      await pairThroughLink(page, runtime.appOrigin, startupPairingCode(runtime));
      await createShellSession(page);
      progress(`   producing ${formatSize(lines * LINE_BYTES)} of output through the runtime`);
      await sendCommand(page, command);
      const status = commandRow(page, command).locator('[data-status]');
      await status.waitFor();
      await waitUntil(
        async () => (await status.getAttribute('data-status')) !== 'running',
        'the command finishes',
        600_000,
      );

      const client = await runtime.connect();
      const [session] = (await client.call('sessions.list')).sessions;
      const row = (await client.call('sessions.timeline', { sessionId: session!.id })).rows.find(
        (r) => r.kind === 'command',
      );
      client.close();
      if (!row || row.kind !== 'command' || row.byteLength !== lines * LINE_BYTES)
        throw new Error('the output was not produced whole');
      await openReferenceSocket(page, session!.id, row.runId, row.commandId);
      const lastPageOffset = row.byteLength - 256 * 1024;

      const firstLines: number[] = [];
      const endLines: number[] = [];
      const referenceFirst: number[] = [];
      const referenceEnd: number[] = [];
      for (let round = 0; round < rounds; round++) {
        referenceFirst.push(await referencePage(page, 0));
        firstLines.push(await timeUntilLineShows(page, 'open-row', rowText(1)));
        referenceEnd.push(await referencePage(page, lastPageOffset));
        endLines.push(await timeUntilLineShows(page, 'end', rowText(lines)));
        await page.getByRole('button', { name: 'Back to timeline' }).click();
        await commandRow(page, command).waitFor();
        progress(
          `   round ${round + 1}: first lines ${firstLines.at(-1)!.toFixed(1)} ms (reference ${referenceFirst.at(-1)!.toFixed(1)}), end ${endLines.at(-1)!.toFixed(1)} ms (reference ${referenceEnd.at(-1)!.toFixed(1)})`,
        );
      }

      // End to end: the scrubber through the whole output, scrolling a few screens at each stop.
      const cdp = await page.context().newCDPSession(page);
      await commandRow(page, command).click();
      await page.getByTestId('output').waitFor();
      await waitUntil(async () => (await firstVisibleLine(page)) === 1, 'the viewer opens at the first line');
      const heap: number[] = [await heapMiB(cdp)];
      const liveHeap: number[] = [];
      const scrubber = page.getByRole('slider', { name: 'Position in output' });
      const max = Number(await scrubber.getAttribute('max'));
      for (let stop = 1; stop <= SCRUB_STOPS; stop++) {
        const value = Math.round((stop / SCRUB_STOPS) * max);
        const expected = Math.floor((value / max) * lines);
        await scrubber.fill(String(value));
        await waitUntil(
          async () => {
            const first = await firstVisibleLine(page);
            return first !== null && Math.abs(first - expected) < 60_000;
          },
          `the viewer lands near line ${expected}`,
          30_000,
        );
        for (let screen = 0; screen < 3; screen++) {
          await page.getByTestId('output').hover();
          await page.mouse.wheel(0, 800);
          await page.waitForTimeout(30);
        }
        heap.push(await heapMiB(cdp));
        if (stop % LIVE_HEAP_EVERY === 0) {
          await cdp.send('HeapProfiler.collectGarbage');
          liveHeap.push(await heapMiB(cdp));
        }
      }
      await cdp.send('HeapProfiler.collectGarbage');
      const heapAfterGc = await heapMiB(cdp);
      await cdp.detach();

      return {
        comparisons: [
          {
            rule: 'PERF-4',
            label: 'time to first lines',
            unit: 'ms',
            better: 'lower',
            oursName: 'viewer open',
            referenceName: 'one 256 KiB page fetched + rendered',
            ours: median(firstLines),
            reference: median(referenceFirst),
            target: 1.5,
          },
          {
            rule: 'PERF-4',
            label: 'time to last lines after End',
            unit: 'ms',
            better: 'lower',
            oursName: 'jump to end',
            referenceName: 'last 256 KiB page fetched + rendered',
            ours: median(endLines),
            reference: median(referenceEnd),
            target: 1.5,
          },
          {
            rule: 'PERF-4',
            label: 'JS heap while scrolling end to end (live, peak)',
            unit: 'MiB',
            better: 'lower',
            oursName: 'peak live heap',
            referenceName: 'budget',
            ours: Math.max(...liveHeap),
            reference: HEAP_BUDGET_MIB,
            target: 1,
          },
          {
            rule: 'PERF-4',
            label: 'JS heap while scrolling end to end (incl. garbage not yet collected, peak)',
            unit: 'MiB',
            better: 'lower',
            oursName: 'peak used heap',
            referenceName: 'budget',
            ours: Math.max(...heap),
            reference: HEAP_BUDGET_MIB,
            target: null,
          },
        ],
        parameters: { totalBytes: lines * LINE_BYTES, rounds, scrubStops: SCRUB_STOPS, command },
        measurements: {
          firstLines,
          referenceFirst,
          endLines,
          referenceEnd,
          heapMiB: heap,
          liveHeapMiB: liveHeap,
          heapAfterGcMiB: heapAfterGc,
        },
        notes: [
          'Times end when the line is in the DOM, inside the visible area, and the next animation frame ran; the reference ends at the same point after putting the page text in a <pre>.',
          `Heap is V8's used heap of the page (Runtime.getHeapUsage), sampled after each of ${SCRUB_STOPS} scrubber stops with three wheel scrolls each; the live heap is the same after a forced full GC, every ${LIVE_HEAP_EVERY} stops. After the last stop and a GC it was ${heapAfterGc.toFixed(1)} MiB.`,
          'The used heap between collections includes pages already dropped from the window (each 256 KiB page becomes bytes, a string and line strings); V8 collects them when it chooses, so that peak is shown without a target.',
        ],
      };
    } finally {
      await browser.close();
      await runtime.stop();
    }
  },
};
