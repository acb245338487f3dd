// The Home Screen app on a notched phone (PWA-5): Chromium overrides the safe-area insets the way
// an iPhone reports them, and the shell keeps the header and the composer out of them.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createShellSession, keptScreenshotPath, newPairingCode, PHONE_CONTEXT } from './appHarness';
import { pairedPage, useAppSuite } from './appSuite';

const NOTCH = { top: 47, bottom: 34, left: 0, right: 0 };

/** Where the header starts and the composer ends, in CSS pixels of the 844 px tall view. */
async function edges(page: Page): Promise<{ headerTop: number; composerBottom: number; scrollWidth: number }> {
  return page.evaluate(() => ({
    headerTop: document.querySelector('header.topbar')!.getBoundingClientRect().top,
    composerBottom: document.querySelector('.composer')!.getBoundingClientRect().bottom,
    scrollWidth: document.documentElement.scrollWidth,
  }));
}

async function setInsets(page: Page, insets: typeof NOTCH): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setSafeAreaInsetsOverride' as never, { insets } as never);
  await page.waitForFunction(
    (top) => getComputedStyle(document.querySelector('.app')!).paddingTop === `${top}px`,
    insets.top,
  );
}

describe('PWA-5 safe areas on a notched phone', () => {
  const suite = useAppSuite();

  it('PWA-5 the header starts below the status bar and the composer ends above the home indicator (light and dark)', async () => {
    const page = await pairedPage(suite, PHONE_CONTEXT);
    await createShellSession(page);
    // UX-8: the open session's title keeps the bar's width beside its buttons (the agent's pill gives way; with it the title had about 105 px).
    const heading = await page
      .locator('.session-bar .session-heading')
      .evaluate((h) => h.getBoundingClientRect().width);
    expect(heading).toBeGreaterThan(150);
    expect(await page.locator('.session-bar > .pill').isVisible()).toBe(false);
    const before = await edges(page);
    expect(before.headerTop).toBe(0);
    expect(before.composerBottom).toBe(844);
    await setInsets(page, NOTCH);
    const after = await edges(page);
    expect(after.headerTop).toBe(NOTCH.top);
    expect(after.composerBottom).toBe(844 - NOTCH.bottom);
    expect(after.scrollWidth).toBeLessThanOrEqual(390);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: keptScreenshotPath('safe-areas', `phone-${colorScheme}`) });
    }
    await page.context().close();
  });

  it('PWA-5 in the iOS Home Screen app a bottom inset reported as 0 (iOS 26) still keeps the composer clear of the home indicator', async () => {
    // The start-up code was used by the test before: a code of its own.
    const page = await pairedPage(suite, PHONE_CONTEXT, await newPairingCode(suite.runtime));
    await page
      .context()
      .addInitScript(() => Object.defineProperty(Navigator.prototype, 'standalone', { get: () => true }));
    await page.reload();
    await createShellSession(page);
    await page.waitForFunction(() => document.documentElement.classList.contains('ios-standalone'));
    const { composerBottom } = await edges(page);
    expect(composerBottom).toBe(844 - 20);
    await page.context().close();
  });
});
