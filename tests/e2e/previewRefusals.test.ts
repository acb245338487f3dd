import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeHash } from '../../lib/client/appRoute';
import { connectChromium } from '../fixtures/sharedChromium';
import { makePreviewSecrets, type PreviewSecrets } from '../fixtures/previewSecrets';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { pairThroughLink, screenshotPath, startupPairingCode } from './appHarness';

/** SEC-6 as a user meets it: a preview link to a secret or to a file that is no page says why, and shows nothing. */
describe('SEC-6 the app explains a refused preview document, in Chromium', () => {
  let secrets: PreviewSecrets;
  let runtime: RuntimeProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    secrets = makePreviewSecrets();
    runtime = await startRuntimeProcess({ projectDirs: [secrets.project] });
    browser = await connectChromium();
    page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await pairThroughLink(page, runtime.appOrigin, startupPairingCode(runtime));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    secrets?.remove();
  });

  it.each([
    { path: 'notes.html', message: /kept private: it holds environment settings/, shot: 'preview-refused-hidden' },
    { path: 'data.json', message: /Only an HTML file/, shot: 'preview-refused-not-html' },
  ])('SEC-6 a preview of $path shows "$message" and no frame', async ({ path, message, shot }) => {
    await page.goto(`${runtime.appOrigin}/${routeHash({ kind: 'preview', projectDirectory: secrets.project, path })}`);
    const alert = page.locator('.preview [role="alert"]');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(message);
    expect(await page.locator('iframe.preview-frame').count()).toBe(0);
    for (const [size, viewport] of [
      ['phone', { width: 390, height: 844 }],
      ['desktop', { width: 1280, height: 800 }],
    ] as const) {
      await page.setViewportSize(viewport);
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        await page.screenshot({ path: screenshotPath(`${shot}-${size}-${colorScheme}`) });
      }
    }
    await page.setViewportSize({ width: 390, height: 844 });
  });
});
