import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { connectChromium } from '../fixtures/sharedChromium';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { waitUntil } from '../fixtures/waitUntil';

describe('before pairing (PWA-1)', () => {
  let runtime: RuntimeProcess;
  let browser: Browser;

  beforeAll(async () => {
    runtime = await startRuntimeProcess();
    browser = await connectChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await runtime.stopIfRunning();
  });

  it('PWA-1 an unpaired browser gets the service worker on the pair screen and opens it with the runtime stopped', async () => {
    const page = await browser.newPage();
    await page.goto(`${runtime.appOrigin}/pair`);
    await page.getByLabel('Pairing code').waitFor();
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await page.reload();
    await waitUntil(
      () => page.evaluate(() => navigator.serviceWorker.controller !== null),
      'the worker controls the pair page',
    );
    expect(await runtime.stop()).toBe(0);
    await page.reload();
    await page.getByLabel('Pairing code').waitFor();
    expect(await page.getByRole('heading', { name: 'Pair this device' }).isVisible()).toBe(true);
  });
});
