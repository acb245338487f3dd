// The rows a timeline shows in the page, read over the whole virtualized list (TL-4 mounts only
// the rows near the view): the list is walked from its top to its end, a part of a screen at a
// time, and each row is read once its body is shown; the older pages are loaded first.
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TimelineRow } from '../../../lib/protocol/rows';
import { waitUntil } from '../../fixtures/waitUntil';
import { waitConnected } from '../appHarness';

export interface RenderedRow {
  /** Its place in the list. */
  index: number;
  /** The timeline row's id (`data-row-id`). */
  id: string;
  /** The row's `data-row`: its kind as drawn. */
  kind: string;
  /** A message's `data-state`, a turn end's or a command's `data-status`; null for other kinds. */
  state: string | null;
}

interface Step {
  rows: (RenderedRow & { pending: boolean; top: number; bottom: number })[];
  atEnd: boolean;
  /** The timeline's box on the page, read with the rows. */
  view: { top: number; bottom: number };
}

/** One look at the mounted rows, after the page drew twice (so measured rows sit where they go). */
function look(page: Page): Promise<Step> {
  return page.evaluate(async () => {
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const box = document.querySelector<HTMLElement>('[data-testid="timeline"]');
    if (!box) return { rows: [], atEnd: false, view: { top: 0, bottom: 0 } };
    const rows = [...box.querySelectorAll<HTMLElement>('.timeline-item')].map((item) => {
      const row = item.querySelector('[data-row]');
      const rect = item.getBoundingClientRect();
      const status =
        row?.getAttribute('data-state') ??
        row?.getAttribute('data-status') ??
        (row?.getAttribute('data-row') === 'command'
          ? row.querySelector('[data-status]')?.getAttribute('data-status')
          : null);
      return {
        index: Number(item.dataset.index),
        id: item.dataset.rowId ?? '',
        kind: row?.getAttribute('data-row') ?? '',
        state: status ?? null,
        pending: item.hasAttribute('data-pending'),
        top: rect.top,
        bottom: rect.bottom,
      };
    });
    const view = box.getBoundingClientRect();
    return {
      rows,
      atEnd: box.scrollTop + box.clientHeight >= box.scrollHeight - 2,
      view: { top: view.top, bottom: view.bottom },
    };
  });
}

/** Rows that overlap the next one drawn below them (each row's box includes its gap). */
function overlaps(step: Step): string[] {
  const shown = step.rows.filter((row) => !row.pending).sort((a, b) => a.index - b.index);
  const found: string[] = [];
  for (let i = 1; i < shown.length; i += 1) {
    const [above, below] = [shown[i - 1]!, shown[i]!];
    if (below.index === above.index + 1 && below.top < above.bottom - 1)
      found.push(
        `${above.id} (${above.kind}) overlaps ${below.id} (${below.kind}) by ${Math.round(above.bottom - below.top)} px`,
      );
  }
  return found;
}

/**
 * Scrolls to the top until the list holds the whole session ("Start of the session"): near the top
 * the list loads older pages, which puts rows before the ones it had, so a walk begun before that
 * would see each row under two places.
 */
async function loadWholeList(page: Page): Promise<void> {
  const timeline = page.getByTestId('timeline');
  await waitUntil(
    async () => {
      await timeline.evaluate((box) => box.scrollTo(0, 0));
      return (await timeline.locator('.timeline-older').getByText('Start of the session').count()) > 0;
    },
    'the timeline holds the whole session (its older pages loaded)',
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  // The list may still move its view once more as the last rows are measured: the walk starts
  // only once the view stays at the top with the first row mounted.
  await waitUntil(
    async () => {
      await timeline.evaluate((box) => box.scrollTo(0, 0));
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      return timeline.evaluate(
        (box) => box.scrollTop === 0 && box.querySelector('.timeline-item[data-index="0"]') !== null,
      );
    },
    'the view stays at the top with the first row mounted',
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}

/** One walk from the top to the end; null when a row turned up at a second place (the list changed under the walk). */
async function walkOnce(page: Page): Promise<RenderedRow[] | null> {
  const seen = new Map<number, RenderedRow>();
  const placeOf = new Map<string, number>();
  await loadWholeList(page);
  for (let guard = 0; guard < 500; guard += 1) {
    // The rows in view show their bodies one per task, and a row is measured again once its body
    // shows: read when none in view still waits and no two rows overlap (a row drawn over the next
    // for longer than that is a fault).
    let last: string[] = [];
    const step = await waitUntil(
      async () => {
        const current = await look(page);
        const inView = current.rows.filter((row) => row.bottom > current.view.top && row.top < current.view.bottom);
        last = overlaps(current);
        return inView.every((row) => !row.pending) && last.length === 0 && current;
      },
      () =>
        `the rows in view show their bodies without overlapping${last.length > 0 ? `; rows overlap:\n${last.join('\n')}` : ''}`,
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    for (const row of step.rows) {
      if (row.pending) continue;
      if ((placeOf.get(row.id) ?? row.index) !== row.index) return null;
      placeOf.set(row.id, row.index);
      seen.set(row.index, { index: row.index, id: row.id, kind: row.kind, state: row.state });
    }
    if (step.atEnd) break;
    await page.getByTestId('timeline').evaluate((box) => box.scrollBy(0, 0.8 * box.clientHeight));
  }
  const rows = [...seen.values()].sort((a, b) => a.index - b.index);
  rows.forEach((row, at) => {
    if (row.index !== at)
      throw new Error(
        `row ${at} of the list was never shown (next shown: ${row.index}; rows seen: ${rows.map((r) => `${r.index} ${r.kind}`).join(', ')})`,
      );
  });
  return rows;
}

/**
 * Every row of the open timeline in order, read by scrolling it from the top to the end once it
 * holds the whole session; fails when two rows drawn one after the other overlap. A walk the list
 * changed under (a row seen at two places) is walked again.
 */
export async function readRenderedRows(page: Page): Promise<RenderedRow[]> {
  for (let walk = 0; walk < 3; walk += 1) {
    const rows = await walkOnce(page);
    if (rows) return rows;
  }
  throw new Error(
    'the list changed under each of three walks from its top to its end (a row kept turning up at another place)',
  );
}

/** How many rows of each `data-row` kind. */
export function renderedKindCounts(rows: readonly RenderedRow[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.kind] = (counts[row.kind] ?? 0) + 1;
  return counts;
}

/** What the page draws for a runtime row: its id, its kind, and its state where the row shows one. */
export function expectedRendering(rows: readonly TimelineRow[]): Omit<RenderedRow, 'index'>[] {
  return rows.map((row) => {
    const state =
      row.kind === 'message'
        ? row.state
        : row.kind === 'turnEnd'
          ? row.status
          : row.kind === 'command'
            ? row.declined
              ? 'declined'
              : row.status
            : null;
    return { id: row.id, kind: row.kind, state };
  });
}

export const withoutIndex = (rows: readonly RenderedRow[]) => rows.map(({ id, kind, state }) => ({ id, kind, state }));

/**
 * TL-3 TL-4 in the page: the rows drawn live (once the page has caught up), after a reload with
 * the network blocked (the app's IndexedDB cache, the service worker serving the app) and after a
 * reload online (the runtime's pages) are `rows`, ids, order and states, and as many of each kind.
 */
export async function expectDrawnThroughReloads(
  page: Page,
  context: BrowserContext,
  rows: readonly TimelineRow[],
  what: (phase: string) => string,
): Promise<void> {
  const expected = expectedRendering(rows);
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.kind] = (counts[row.kind] ?? 0) + 1;
  const live = await waitUntil(
    async () => {
      const drawn = await readRenderedRows(page);
      return JSON.stringify(withoutIndex(drawn)) === JSON.stringify(expected) && drawn;
    },
    () => what('the rows drawn live are the runtime rows'),
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  expect(renderedKindCounts(live), what('live counts')).toEqual(counts);

  await context.setOffline(true);
  await page.reload();
  await page.getByTestId('offline-banner').waitFor();
  await page.getByText(/^Saved /).waitFor();
  expect(withoutIndex(await readRenderedRows(page)), what('after a reload offline (the app’s cache)')).toEqual(
    expected,
  );

  await context.setOffline(false);
  await page.reload();
  await waitConnected(page);
  // The app may show its saved rows until the runtime's newest page is in: then those.
  await waitUntil(
    async () => (await page.getByText(/^Saved /).count()) === 0,
    'the rows shown are the runtime’s, not the saved ones',
  );
  const online = await readRenderedRows(page);
  expect(withoutIndex(online), what('after a reload online (the runtime)')).toEqual(expected);
  expect(renderedKindCounts(online), what('counts after the reload')).toEqual(counts);
}
