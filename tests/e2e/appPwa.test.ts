import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromiumProfile } from '../fixtures/browser';
import { connectChromium } from '../fixtures/sharedChromium';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import {
  copyRuntimeWithApp,
  createShellSession,
  pairThroughLink,
  startupPairingCode,
  waitConnected,
  type RuntimeCopy,
} from './appHarness';
import { waitUntil } from '../fixtures/waitUntil';

interface ManifestIcon {
  src: string;
  sizes: string;
  type?: string;
  purpose?: string;
}
interface WebManifest {
  name?: string;
  short_name?: string;
  start_url?: string;
  scope?: string;
  display?: string;
  theme_color?: string;
  background_color?: string;
  icons?: ManifestIcon[];
}

const PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
const HEX_COLOUR = /^#[0-9a-f]{6}$/i;

/** Whether the page is controlled, and by which script. */
const controllerScript = (page: Page) => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null);

describe('PWA-1 the app installs and its shell loads offline', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let profileDir: string;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let manifest: WebManifest;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-profile-'));
    context = await launchChromiumProfile(profileDir);
    page = context.pages()[0] ?? (await context.newPage());
    cdp = await context.newCDPSession(page);
  });
  afterAll(async () => {
    await context?.close();
    await runtime?.stop();
    dirs?.remove();
    if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
  });

  it('PWA-1 the manifest is served as application/manifest+json with a name, standalone display, start URL, colours and 192/512 PNG icons incl. a maskable one', async () => {
    await page.goto(`${runtime.appOrigin}/`);
    const served = await page.evaluate(async () => {
      const response = await fetch('/manifest.webmanifest', { cache: 'no-store' });
      return {
        status: response.status,
        contentType: response.headers.get('content-type'),
        text: await response.text(),
      };
    });
    expect(served.status).toBe(200);
    expect(served.contentType).toMatch(/^application\/manifest\+json\b/);
    manifest = JSON.parse(served.text) as WebManifest;

    expect(manifest.name).toBe('HB Code');
    expect(manifest.short_name?.length).toBeGreaterThan(0);
    // Longer short names are cut under the icon on a phone's home screen.
    expect(manifest.short_name!.length).toBeLessThanOrEqual(12);
    expect(manifest.display).toBe('standalone');
    const startUrl = new URL(manifest.start_url ?? '', runtime.appOrigin);
    expect(startUrl.origin).toBe(runtime.appOrigin);
    expect(startUrl.href.startsWith(new URL(manifest.scope ?? '/', runtime.appOrigin).href)).toBe(true);
    expect(manifest.theme_color).toMatch(HEX_COLOUR);
    expect(manifest.background_color).toMatch(HEX_COLOUR);

    const icons = manifest.icons ?? [];
    const purposes = (icon: ManifestIcon) => (icon.purpose ?? 'any').split(/\s+/);
    const has = (size: string, purpose: string) =>
      icons.some((i) => i.sizes.split(/\s+/).includes(size) && i.type === 'image/png' && purposes(i).includes(purpose));
    expect(has('192x192', 'any')).toBe(true);
    expect(has('512x512', 'any')).toBe(true);
    expect(icons.some((i) => purposes(i).includes('maskable') && i.type === 'image/png')).toBe(true);
  });

  it('PWA-1 every icon in the manifest is a PNG of its stated size, served as image/png', async () => {
    expect(manifest.icons?.length).toBeGreaterThanOrEqual(3);
    for (const icon of manifest.icons!) {
      const facts = await page.evaluate(async (src) => {
        const response = await fetch(src, { cache: 'no-store' });
        const bytes = new Uint8Array(await response.arrayBuffer());
        const view = new DataView(bytes.buffer);
        const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
        return {
          status: response.status,
          contentType: response.headers.get('content-type'),
          signature: [...bytes.subarray(0, 8)],
          firstChunk: String.fromCharCode(...bytes.subarray(12, 16)),
          headerSize: `${view.getUint32(16)}x${view.getUint32(20)}`,
          decodedSize: `${bitmap.width}x${bitmap.height}`,
        };
      }, icon.src);
      expect(facts, icon.src).toEqual({
        status: 200,
        contentType: 'image/png',
        signature: PNG_SIGNATURE,
        firstChunk: 'IHDR',
        headerSize: icon.sizes,
        decodedSize: icon.sizes,
      });
    }
  });

  it('PWA-1 the page links the manifest and Chromium parses it without errors', async () => {
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(new URL(href ?? '', runtime.appOrigin).href).toBe(`${runtime.appOrigin}/manifest.webmanifest`);
    const parsed = await cdp.send('Page.getAppManifest');
    expect(parsed.url).toBe(`${runtime.appOrigin}/manifest.webmanifest`);
    expect(parsed.errors).toEqual([]);
  });

  it('PWA-1 after pairing, the service worker registers, precaches the shell and controls the page after a reload', async () => {
    await pairThroughLink(page, runtime.appOrigin, startupPairingCode(runtime));
    const registration = await page.evaluate(async () => {
      const ready = await navigator.serviceWorker.ready;
      return { scope: ready.scope, script: ready.active?.scriptURL ?? null };
    });
    expect(registration).toEqual({ scope: `${runtime.appOrigin}/`, script: `${runtime.appOrigin}/sw.js` });
    // The first page load is never taken over (the worker does not claim clients): a reload is.
    await page.reload();
    await waitConnected(page);
    expect(await controllerScript(page)).toBe(`${runtime.appOrigin}/sw.js`);

    const cached = await page.evaluate(async () => {
      const urls: string[] = [];
      for (const name of await caches.keys())
        for (const request of await (await caches.open(name)).keys()) urls.push(new URL(request.url).pathname);
      return urls;
    });
    for (const shellFile of ['/index.html', '/manifest.webmanifest', '/icons/icon-192.png'])
      expect(cached).toContain(shellFile);
    expect(cached.some((p) => p.startsWith('/_next/static/'))).toBe(true);
  });

  it('PWA-1 Chromium reports no installability errors for the app (its own install verdict)', async () => {
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    expect(installabilityErrors).toEqual([]);
  });

  it('PWA-1 with the runtime stopped, the app shell still loads (from the service worker) with its CSP and says it is not connected', async () => {
    await runtime.stop();
    // Nothing answers on the port any more, so whatever loads now comes from the service worker.
    await expect(fetch(`http://127.0.0.1:${runtime.port}/healthz`)).rejects.toThrow();

    const response = await page.reload();
    expect(response?.fromServiceWorker()).toBe(true);
    expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self' 'sha256-/);
    await page.getByRole('heading', { name: 'HB Code' }).waitFor();
    const status = page.locator('[data-connection]');
    await waitUntil(
      async () => (await status.getAttribute('data-connection')) !== 'connecting',
      'the app gives up its first connection attempt',
    );
    expect(await status.getAttribute('data-connection')).not.toBe('open');

    // A deep link the runtime would have served as its own page opens the same shell offline.
    const pairResponse = await page.goto(`${runtime.appOrigin}/pair`);
    expect(pairResponse?.fromServiceWorker()).toBe(true);
    await page.getByRole('heading', { name: 'HB Code' }).waitFor();
  });
});

/** Appended to the copy's sw.js: the new version answers this probe, the old one never does. */
const NEW_VERSION_PROBE = `
;self.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'HBCODE_TEST_VERSION' && event.ports[0]) event.ports[0].postMessage('second');
});
`;

/** Asks the controlling worker which version it is: 'second' for the changed one, null for the original. */
function askControllerVersion(page: Page): Promise<string | null> {
  return page.evaluate(
    () =>
      new Promise<string | null>((resolve) => {
        const controller = navigator.serviceWorker.controller;
        if (!controller) return resolve('no controller');
        const channel = new MessageChannel();
        channel.port1.onmessage = (event) => resolve(String(event.data));
        controller.postMessage({ type: 'HBCODE_TEST_VERSION' }, [channel.port2]);
        setTimeout(() => resolve(null), 1000);
      }),
  );
}

declare global {
  interface Window {
    /** Set by the test; gone once the page has reloaded. */
    __hbcodeSameDocument?: boolean;
  }
}

describe('PWA-1 a new version is offered, never forced', () => {
  let copy: RuntimeCopy;
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let browser: Browser;

  beforeAll(async () => {
    copy = copyRuntimeWithApp();
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs, wrap: copy.wrap });
    browser = await connectChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    dirs?.remove();
    copy?.remove();
  });

  it('PWA-1 a changed service worker waits while the page works; "Reload" in the app\'s prompt is what switches to it', async () => {
    const page = await (await browser.newContext()).newPage();
    await pairThroughLink(page, runtime.appOrigin, startupPairingCode(runtime));
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.reload();
    await waitConnected(page);
    expect(await controllerScript(page)).toBe(`${runtime.appOrigin}/sw.js`);
    expect(await askControllerVersion(page)).toBeNull();

    // Work in progress: an open session with a half-typed message.
    await createShellSession(page);
    const draft = page.getByRole('textbox', { name: 'Message' });
    await draft.fill('echo half typed');

    const prompt = page.getByText('A new version of HB Code is ready.');
    expect(await prompt.count()).toBe(0);
    fs.appendFileSync(path.join(copy.outDir, 'sw.js'), NEW_VERSION_PROBE);
    await page.evaluate(async () => {
      window.__hbcodeSameDocument = true;
      await (await navigator.serviceWorker.getRegistration())?.update();
    });
    await prompt.waitFor();

    const waiting = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration();
      return {
        waiting: registration?.waiting?.state ?? null,
        activeIsController: registration?.active === navigator.serviceWorker.controller,
      };
    });
    expect(waiting).toEqual({ waiting: 'installed', activeIsController: true });
    // Not forced: a while later the old worker still controls the same document, draft intact.
    await page.waitForTimeout(1500);
    expect(await page.evaluate(() => window.__hbcodeSameDocument)).toBe(true);
    expect(await askControllerVersion(page)).toBeNull();
    expect(await draft.inputValue()).toBe('echo half typed');

    const reloaded = page.waitForEvent('load');
    await page.getByRole('button', { name: 'Reload', exact: true }).click();
    await reloaded;
    await waitConnected(page);
    expect(await page.evaluate(() => window.__hbcodeSameDocument)).toBeUndefined();
    expect(await askControllerVersion(page)).toBe('second');
    expect(
      await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting?.state ?? null),
    ).toBeNull();
    expect(await prompt.count()).toBe(0);
  });
});
