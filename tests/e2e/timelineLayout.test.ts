import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectChromium } from '../fixtures/sharedChromium';
import { waitUntil } from '../fixtures/waitUntil';
import { screenshotPath } from './appHarness';
import { everyRowKind } from './timeline/timelineFixture';
import { openTimelinePage } from './timeline/timelinePageHarness';
import { scrollTimeline, timelineLayout } from './timeline/timelinePageQueries';

const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };
const ROW_COUNT = everyRowKind().rows.length;

/** Every row rendered at least once on the way from the top to the end, a screen at a time. */
async function eachScreen(page: Page, check: (screen: number) => Promise<void>): Promise<Set<string>> {
  const seen = new Set<string>();
  await scrollTimeline(page, 0);
  for (let screen = 0; screen < 200; screen++) {
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    for (const id of await page
      .locator('.timeline-item')
      .evaluateAll((els) => els.map((el) => (el as HTMLElement).dataset.rowId ?? '')))
      seen.add(id);
    await check(screen);
    const atEnd = await page.evaluate(() => {
      const box = document.querySelector('[data-testid="timeline"]')!;
      if (box.scrollTop + box.clientHeight >= box.scrollHeight - 1) return true;
      box.scrollBy(0, box.clientHeight * 0.9);
      return false;
    });
    if (atEnd) break;
  }
  return seen;
}

describe('PWA-5 the timeline with every row kind on a phone and a desktop, light and dark', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await connectChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const [device, options] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      it(`PWA-5 TL-1 ${device} ${colorScheme}: no row overflows sideways, every control is at least 44 px (screenshot)`, async () => {
        const { context, page } = await openTimelinePage(browser, { ...options, colorScheme });
        try {
          const width = options.viewport!.width;
          // The diff's highlighting is part of what is looked at.
          await waitUntil(
            () => page.locator('[data-file="src/app.ts"] .diff-text span[style*="color"]').count(),
            'the diff is highlighted',
            60_000,
          ).catch(() => false);
          const seen = await eachScreen(page, async (screen) => {
            const facts = await timelineLayout(page);
            expect.soft(facts.scrollWidth, `screen ${screen}: nothing overflows sideways`).toBeLessThanOrEqual(width);
            expect.soft(facts.smallTargets, `screen ${screen}: controls under 44 px`).toEqual([]);
          });
          expect(seen.size).toBe(ROW_COUNT);
          // The whole turn in one picture: a viewport as tall as the rows (then every row is rendered),
          // the 5,000-line diff folded to its header so the picture stays small.
          const tall = await page.evaluate(() => document.querySelector('[data-testid="timeline"]')!.scrollHeight);
          await page.setViewportSize({ width, height: Math.min(8000, tall + 200) });
          await waitUntil(
            async () => (await page.locator('.timeline-item').count()) === ROW_COUNT,
            'every row is rendered',
          );
          await page.locator('[data-file="src/generated/table.ts"] .file-diff-header').click();
          // As tall as the rows and the bars above and below them, no more.
          const folded = await page.evaluate(() => {
            const box = document.querySelector('[data-testid="timeline"]')!;
            return (
              [...box.children].reduce((sum, child) => sum + child.getBoundingClientRect().height, 0) +
              window.innerHeight -
              box.clientHeight
            );
          });
          await page.setViewportSize({ width, height: Math.ceil(folded) });
          await scrollTimeline(page, 0);
          await waitUntil(
            () => page.locator('[data-file="src/app.ts"] .diff-text span[style*="color"]').count(),
            'the diff is highlighted',
            60_000,
          );
          await page.screenshot({ path: screenshotPath(`timeline-every-row-${device}-${colorScheme}`) });
        } finally {
          await context.close();
        }
      }, 180_000);
    }
  }
});
