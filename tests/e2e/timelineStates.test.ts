import type { Browser, BrowserContextOptions } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandRow } from '../../lib/protocol/rows';
import { connectChromium } from '../fixtures/sharedChromium';
import { waitUntil } from '../fixtures/waitUntil';
import { screenshotPath } from './appHarness';
import { everyRowKind } from './timeline/timelineFixture';
import { openTimelinePage } from './timeline/timelinePageHarness';
import { pushRow } from './timeline/timelinePageQueries';

const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const DESKTOP: BrowserContextOptions = { viewport: { width: 1440, height: 900 } };

/** A command the person declined, as the runtime sends it (TL-9). */
function declinedCommand(): CommandRow {
  const template = everyRowKind().rows.find((r): r is CommandRow => r.kind === 'command')!;
  return {
    ...template,
    id: 'c:declined',
    commandId: 'declined',
    command: 'rm -rf build && make release',
    status: 'cancelled',
    exitCode: null,
    byteLength: 0,
    generation: 1,
    complete: true,
    sourceIncomplete: false,
    error: 'The command was declined.',
    declined: true,
    startedAt: Date.now() - 2000,
    endedAt: Date.now() - 1900,
  };
}

describe('TL-9 a declined command reads what happened', () => {
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
      it(`TL-9 ${device} ${colorScheme}: "declined", no "cancelled", no "may be incomplete", no Stop (screenshot)`, async () => {
        const { context, page } = await openTimelinePage(browser, { ...options, colorScheme });
        try {
          await pushRow(page, declinedCommand());
          const row = page.locator('.timeline-item[data-row-id="c:declined"]');
          // The list is virtualized and follows the newest row: read it once it is rendered and still.
          const text = await waitUntil(async () => {
            if ((await row.locator('[data-status="declined"]').count()) === 0) return false;
            return (await row.textContent({ timeout: 1000 }).catch(() => null)) ?? false;
          }, 'the declined row is rendered');
          expect(text).toContain('declined');
          expect(text).not.toMatch(/cancelled|may be incomplete/);
          expect(await row.getByRole('button', { name: /stop/i }).count()).toBe(0);
          await page.screenshot({ path: screenshotPath(`timeline-declined-command-${device}-${colorScheme}`) });
        } finally {
          await context.close();
        }
      }, 120_000);
    }
  }
});
