import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContextOptions } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISK_FULL_MESSAGE } from '../../server/runtime/errors';
import { connectChromium } from '../fixtures/sharedChromium';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { mountSmallDisk, type SmallDisk } from '../fixtures/smallDisk';
import { createShellSession, newPairingCode, pairThroughLink, sendCommand, waitCommandFinished } from './appHarness';
import { REPO_ROOT } from '../../server/runtime/paths';

// RPC-3 `storage` / `disk_full` as a person sees it: the desktop's data folder is a small tmpfs
// the test fills; a message sent from the app fails with the runtime's words, and Retry sends it
// once space is freed.

const SCREENS: { device: string; options: BrowserContextOptions }[] = [
  {
    device: 'phone',
    options: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  },
  { device: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
];

/** Screenshots a person looked at for this change, kept small in the repository. */
function keptScreenshot(name: string): string {
  const dir = path.join(REPO_ROOT, 'docs', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}.png`);
}

describe('the app when the desktop disk is full (RPC-3)', () => {
  let disk: SmallDisk;
  let runtime: RuntimeProcess;
  let browser: Browser;

  beforeAll(async () => {
    disk = mountSmallDisk(32);
    runtime = await startRuntimeProcess({ dataDir: disk.dir });
    browser = await connectChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    disk?.unmount();
  });

  for (const { device, options } of SCREENS) {
    it(`RPC-3 ${device}: a message sent on a full disk fails with the disk-full message; Retry sends it once space is freed`, async () => {
      const context = await browser.newContext(options);
      const page = await context.newPage();
      try {
        await pairThroughLink(page, runtime.appOrigin, await newPairingCode(runtime));
        await createShellSession(page);
        disk.fill();
        const command = `echo sent from the ${device} after space was freed`;
        await sendCommand(page, command);
        const entry = page.locator('[data-row="outbox"][data-outbox-state="failed"]');
        await entry.waitFor();
        expect(await entry.textContent()).toContain(DISK_FULL_MESSAGE);
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme });
          await page.screenshot({ path: keptScreenshot(`disk-full-${device}-${colorScheme}`) });
        }
        await page.emulateMedia({ colorScheme: 'light' });
        // The message stays whole on a narrow screen: nothing overflows sideways.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow).toBeLessThanOrEqual(0);

        disk.free();
        await entry.getByRole('button', { name: 'Retry' }).click();
        expect(await waitCommandFinished(page, command)).toContain('exit 0');
        await expect(page.locator('[data-row="outbox"][data-outbox-state="failed"]').count()).resolves.toBe(0);
      } finally {
        await context.close();
      }
    });
  }
});
