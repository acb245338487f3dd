import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DESKTOP_CONTEXT, newPairingCode, PHONE_CONTEXT, screenshotPath } from './appHarness';
import { pairedPage, useAppSuite } from './appSuite';
const MIN_TARGET_PX = 44;
const DESTINATIONS = ['Sessions', 'Files', 'Web', 'Devices', 'Accounts', 'Settings'];

interface HeaderFacts {
  innerWidth: number;
  scrollWidth: number;
  /** Anything inside the header that scrolls sideways, as "nav 500>300". */
  scrollers: string[];
  /** Every link and button of the header: its name and box. */
  targets: { name: string; left: number; right: number; top: number; width: number; height: number }[];
  headerHeight: number;
}

const headerFacts = (page: Page): Promise<HeaderFacts> =>
  page.evaluate(() => {
    const header = document.querySelector('header.topbar')!;
    const scrollers = [header, ...header.querySelectorAll('*')]
      // A visually hidden text (1 px, for screen readers) scrolls nothing anyone sees.
      .filter(
        (el) =>
          el.scrollWidth > el.clientWidth + 1 &&
          el.getBoundingClientRect().width > 1 &&
          getComputedStyle(el).overflowX !== 'visible',
      )
      .map((el) => `${el.tagName.toLowerCase()} ${el.scrollWidth}>${el.clientWidth}`);
    const targets = [...header.querySelectorAll('a, button')].map((el) => {
      const box = el.getBoundingClientRect();
      return {
        name: (el.textContent ?? '').trim(),
        left: box.left,
        right: box.right,
        top: box.top,
        width: box.width,
        height: box.height,
      };
    });
    return {
      innerWidth: window.innerWidth,
      scrollWidth: document.documentElement.scrollWidth,
      scrollers,
      targets,
      headerHeight: header.getBoundingClientRect().height,
    };
  });

describe('UX-4 the app header: every destination in reach on a phone, all of it on a desktop', () => {
  const suite = useAppSuite();

  for (const [device, options] of [
    ['phone', PHONE_CONTEXT],
    ['desktop', DESKTOP_CONTEXT],
  ] as const) {
    it(`UX-4 ${device}: every view link sits inside the width in one row, at least ${MIN_TARGET_PX} px, light and dark (screenshots)`, async () => {
      const page = await pairedPage(suite, options, await newPairingCode(suite.runtime));
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        const facts = await headerFacts(page);
        expect(facts.scrollWidth, colorScheme).toBeLessThanOrEqual(facts.innerWidth);
        expect(facts.scrollers, colorScheme).toEqual([]);
        const names = facts.targets.map((t) => t.name);
        for (const name of DESTINATIONS) expect(names, colorScheme).toContain(name);
        // One row (UX-4): Sign out lives in Settings and the reader's address on its own screen.
        expect(names, colorScheme).not.toContain('Sign out');
        expect(new Set(facts.targets.map((t) => Math.round(t.top))).size, colorScheme).toBe(1);
        expect(await page.getByLabel('Web address').count(), colorScheme).toBe(0);
        for (const target of facts.targets) {
          expect(target.left, `${target.name} ${colorScheme}`).toBeGreaterThanOrEqual(0);
          expect(target.right, `${target.name} ${colorScheme}`).toBeLessThanOrEqual(facts.innerWidth);
          expect(Math.min(target.width, target.height), `${target.name} ${colorScheme}`).toBeGreaterThanOrEqual(
            MIN_TARGET_PX,
          );
        }
        // Every destination is one tap away: clicking it from the header lands on its view.
        await page.getByRole('link', { name: 'Accounts' }).click();
        await page.waitForURL(/#\/accounts$/);
        await page.getByRole('link', { name: 'Sessions' }).click();
        await page.waitForURL(/#\/$/);
        const header = page.locator('header.topbar');
        await header.screenshot({ path: screenshotPath(`header-${device}-${colorScheme}`) });
      }
      await page.context().close();
    });
  }
});
