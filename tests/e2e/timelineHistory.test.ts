import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FIRST_PAGE_SIZE, DEFAULT_TIMELINE_PAGE_SIZE } from '../../lib/client/timeline/timelineStore';
import { connectChromium } from '../fixtures/sharedChromium';
import { waitUntil } from '../fixtures/waitUntil';
import { manyRows } from './timeline/timelineFixture';
import { openTimelinePage } from './timeline/timelinePageHarness';
import { fixtureCalls, holdPages, rowsInView, scrollTimeline, settledRowsInView } from './timeline/timelinePageQueries';

const ROWS = 1000;
const { rows } = manyRows(ROWS);
const NEWEST = rows.at(-1)!.id;
const FIRST = rows[0]!.id;
const pageReads = async (page: Page) => (await fixtureCalls(page)).filter((c) => c.method === 'sessions.timeline');
const topOf = (page: Page, id: string) =>
  page.evaluate((id) => {
    const box = document.querySelector('[data-testid="timeline"]')!.getBoundingClientRect();
    const row = document.querySelector(`.timeline-item[data-row-id="${id}"]`);
    return row ? row.getBoundingClientRect().top - box.top : null;
  }, id);

/** Generous: on a busy 2-core machine the lazily loaded timeline and its pages can take a while. */
const LOADED_MS = 90_000;

describe('TL-4 a long timeline opens at its newest rows and reads older pages while scrolling up', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await connectChromium();
    ({ page } = await openTimelinePage(
      browser,
      { viewport: { width: 1280, height: 800 } },
      `?fixture=many&count=${ROWS}`,
    ));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  it(
    'TL-4 opens at the newest row with only the newest page read, the list virtualized',
    async () => {
      await waitUntil(async () => (await rowsInView(page)).includes(NEWEST), 'the newest row is in view', LOADED_MS);
      expect(await pageReads(page)).toHaveLength(1);
      expect((await pageReads(page))[0]!.params.before).toBeUndefined();
      expect(await page.locator('.timeline-item').count()).toBeLessThan(40);
    },
    2 * LOADED_MS,
  );

  it(
    'TL-4 scrolling to the top reads the page before; the rows in view stay in view',
    async () => {
      await holdPages(page, true);
      await scrollTimeline(page, 0);
      await page.getByRole('status').filter({ hasText: 'Loading older rows…' }).waitFor();
      const anchor = (await settledRowsInView(page, LOADED_MS))[1]!;
      const before = await topOf(page, anchor);
      await holdPages(page, false);
      await waitUntil(
        async () => (await pageReads(page)).length === 2 && (await page.getByText('Loading older rows…').count()) === 0,
        'the older page lands',
        LOADED_MS,
      );
      expect((await pageReads(page))[1]!.params.before).toBe(String(ROWS - DEFAULT_FIRST_PAGE_SIZE));
      await waitUntil(async () => (await rowsInView(page)).includes(anchor), `${anchor} is still in view`, LOADED_MS);
      await settledRowsInView(page, LOADED_MS);
      const after = await topOf(page, anchor);
      expect(Math.abs(after! - before!)).toBeLessThan(200);
    },
    4 * LOADED_MS,
  );

  it(
    'TL-4 keeps reading back, page by page, to the first row',
    async () => {
      for (let step = 0; step < 40 && (await page.getByText('Start of the session').count()) === 0; step++) {
        const reads = (await pageReads(page)).length;
        await scrollTimeline(page, 0);
        let seen = '';
        await waitUntil(
          async () => {
            const now = await pageReads(page);
            seen = `${now.length} pages read, scrolled to ${await page.evaluate(() => document.querySelector('[data-testid="timeline"]')!.scrollTop)}, bar "${await page.locator('.timeline-older').textContent()}"`;
            return now.length > reads || (await page.getByText('Start of the session').count()) > 0;
          },
          () => `another page is read after ${reads} (${seen})`,
          LOADED_MS,
        );
      }
      await scrollTimeline(page, 0);
      await waitUntil(async () => (await rowsInView(page)).includes(FIRST), 'the first row is in view', LOADED_MS);
      expect(await pageReads(page)).toHaveLength(
        1 + Math.ceil((ROWS - DEFAULT_FIRST_PAGE_SIZE) / DEFAULT_TIMELINE_PAGE_SIZE),
      );
      expect(await page.locator('.timeline-item').count()).toBeLessThan(40);
    },
    6 * LOADED_MS,
  );
});
