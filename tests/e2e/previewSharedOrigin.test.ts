import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectChromium } from '../fixtures/sharedChromium';
import { startSharedPreviewRuntime } from '../fixtures/sharedPreviewRuntime';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import type { RuntimeProcess } from '../fixtures/runtimeProcess';
import { pairThroughLink, startupPairingCode } from './appHarness';
import { openPreview } from './previewHarness';

describe('ORG-3 a shared preview origin in Chromium', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let browser: Browser;
  let page: Page;
  let port: number;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    ({ runtime, port } = await startSharedPreviewRuntime(dirs));
    browser = await connectChromium();
    page = await (await browser.newContext()).newPage();
    await pairThroughLink(page, runtime.appOrigin, startupPairingCode(runtime));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  it('ORG-3 the site renders under its /p-<id>/ prefix on the shared origin, and the UI says the origin is shared', async () => {
    await openPreview(page, runtime, dirs.projectDirs[0]!, 'index.html');
    await page.getByRole('note').filter({ hasText: 'Previews share one origin here' }).waitFor();
    const frame = await (async () => {
      for (;;) {
        const found = page
          .frames()
          .find(
            (f) => f.url().startsWith(`http://preview.hbcode.localhost:${port}/p-`) && f.url().endsWith('/index.html'),
          );
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    await frame.locator('#status', { hasText: 'ready 42 sales' }).waitFor({ timeout: 20_000 });
    const prefix = new URL(frame.url()).pathname.replace(/index\.html$/, '');
    expect(prefix).toMatch(/^\/p-[0-9a-f]{32}\/$/);
    const statuses = await frame.evaluate(async (prefix) => {
      const other = '/p-ffffffffffffffffffffffffffffffff/index.html';
      return {
        own: (await fetch(`${prefix}data/info.json`)).status,
        other: (await fetch(other)).status,
        bare: (await fetch('/index.html')).status,
      };
    }, prefix);
    expect(statuses).toEqual({ own: 200, other: 404, bare: 404 });
  });
});
