import type { Page } from 'playwright-core';
import type { TimelineRow } from '../../../lib/protocol/rows';
import type { FixtureControls } from './fixtureSocket';

/** The fixture runtime's calls so far (FixtureSocket.controls.calls). */
export function fixtureCalls(page: Page): Promise<FixtureControls['calls']> {
  return page.evaluate(() => (globalThis as unknown as { __timeline: FixtureControls }).__timeline.calls);
}

/** Sends a live row as the runtime would (`timeline.row`). */
export function pushRow(page: Page, row: TimelineRow): Promise<void> {
  return page.evaluate(
    (row) => (globalThis as unknown as { __timeline: FixtureControls }).__timeline.pushRow(row),
    row,
  );
}

export function holdPages(page: Page, hold: boolean): Promise<void> {
  return page.evaluate(
    (hold) => (globalThis as unknown as { __timeline: FixtureControls }).__timeline.holdPages(hold),
    hold,
  );
}

/** The rows at least partly inside the timeline's visible box, top first, with their tops relative to the box; after two animation frames when asked. */
function rowTops(page: Page, afterFrames: boolean): Promise<{ id: string; top: number }[]> {
  return page.evaluate(async (afterFrames) => {
    if (afterFrames) await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const box = document.querySelector('[data-testid="timeline"]');
    if (!box) return [];
    const view = box.getBoundingClientRect();
    return [...box.querySelectorAll<HTMLElement>('.timeline-item')]
      .map((el) => ({ id: el.dataset.rowId ?? '', rect: el.getBoundingClientRect() }))
      .filter(({ rect }) => rect.bottom > view.top + 1 && rect.top < view.bottom - 1)
      .sort((a, b) => a.rect.top - b.rect.top)
      .map(({ id, rect }) => ({ id, top: Math.round(rect.top - view.top) }));
  }, afterFrames);
}

/** Ids of the rows at least partly inside the timeline's visible box, top first. */
export async function rowsInView(page: Page): Promise<string[]> {
  return (await rowTops(page, false)).map(({ id }) => id);
}

/** Scrolls the timeline's box to `top` (pixels, or 'end'). */
export function scrollTimeline(page: Page, top: number | 'end'): Promise<void> {
  return page.evaluate((top) => {
    const box = document.querySelector('[data-testid="timeline"]');
    if (box) box.scrollTop = top === 'end' ? box.scrollHeight : top;
  }, top);
}

export interface TimelineLayout {
  viewportWidth: number;
  scrollWidth: number;
  /** Visible controls in the page smaller than 44 px: "button 'Stop' 40x30". */
  smallTargets: string[];
}

/** Sideways overflow of the page, and every visible control smaller than a fingertip (PWA-5). */
export function timelineLayout(page: Page): Promise<TimelineLayout> {
  return page.evaluate(() => {
    const smallTargets = [...document.querySelectorAll<HTMLElement>('button, a[href], input, textarea, summary')]
      .map((el) => ({ el, r: el.getBoundingClientRect() }))
      .filter(
        ({ el, r }) =>
          r.width > 0 &&
          r.height > 0 &&
          getComputedStyle(el).visibility !== 'hidden' &&
          (r.width < 43.5 || r.height < 43.5),
      )
      .map(
        ({ el, r }) =>
          `${el.tagName.toLowerCase()} '${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 30)}' ${Math.round(r.width)}x${Math.round(r.height)}`,
      );
    return { viewportWidth: window.innerWidth, scrollWidth: document.documentElement.scrollWidth, smallTargets };
  });
}

/**
 * Waits until the rows in view stop moving (rows rendered with a guessed height move once they
 * are measured, a frame or more later on a busy machine), then returns their ids, top first.
 */
export async function settledRowsInView(page: Page, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  const layout = async () => JSON.stringify(await rowTops(page, true));
  let last = await layout();
  for (;;) {
    const now = await layout();
    if (now !== '[]' && now === last) return (JSON.parse(now) as { id: string }[]).map(({ id }) => id);
    if (Date.now() > deadline) throw new Error(`the rows in view kept moving: ${last} → ${now}`);
    last = now;
  }
}
