import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../server/runtime/paths';
import { waitUntil } from '../fixtures/waitUntil';
import { waitConnected } from './appHarness';
import { pairedPage, useAppSuite } from './appSuite';

// PWA-1, UX-7 in real Chromium against the real runtime: installing the service worker fetches
// only the shell; a view's code loaded later is cached when first used and then opens offline.

const OUT = path.join(REPO_ROOT, 'out');
const LAZY_CACHE = 'hbcode-app-files';

/** Paths held by the service worker's caches, by cache: the shell's precache and the lazy one. */
function cachedPaths(page: Page): Promise<{ precache: string[]; lazy: string[] }> {
  return page.evaluate(async (lazyName) => {
    const paths = async (name: string) =>
      (await (await caches.open(name)).keys()).map((request) => new URL(request.url).pathname);
    const names = await caches.keys();
    const precache = (await Promise.all(names.filter((name) => name.startsWith('workbox-precache')).map(paths))).flat();
    return { precache, lazy: names.includes(lazyName) ? await paths(lazyName) : [] };
  }, LAZY_CACHE);
}

/** Every JavaScript and CSS file of the build. */
function builtCode(): string[] {
  const list = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.name.startsWith('.')) return [];
      return entry.isDirectory() ? list(full) : [full];
    });
  return list(OUT)
    .filter((file) => /\.(js|css)$/.test(file) && path.basename(file) !== 'sw.js')
    .map((file) => '/' + path.relative(OUT, file).split(path.sep).join('/'));
}

const bytesOf = (paths: readonly string[]) => paths.reduce((sum, p) => sum + fs.statSync(path.join(OUT, p)).size, 0);

describe('PWA-1 UX-7 the service worker installs the shell only and caches the rest on first use', () => {
  const suite = useAppSuite();

  it('PWA-1 UX-7 install precaches the pages, the first screen’s code, the manifest and icons, not the views loaded later; a view used once opens offline', async () => {
    const { runtime } = suite;
    const page = await pairedPage(suite);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));

    const firstScreen = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((entry) => new URL(entry.name))
        .filter((url) => url.origin === location.origin && /\.(js|css)$/.test(url.pathname))
        .map((url) => url.pathname),
    );
    const { precache } = await cachedPaths(page);
    for (const shellFile of ['/index.html', '/pair.html', '/manifest.webmanifest', '/icons/icon-192.png'])
      expect(precache).toContain(shellFile);
    // The first screen's own code is in the shell…
    expect(firstScreen.filter((p) => p.startsWith('/_next/static/') && !precache.includes(p))).toEqual([]);
    // …and nothing else: no worker script, no grammar, most of the build's code left for later.
    const code = builtCode();
    const precachedCode = precache.filter((p) => code.includes(p));
    expect(precachedCode.some((p) => p.startsWith('/workers/'))).toBe(false);
    const pages = ['index.html', 'pair.html', '404.html', '_not-found.html']
      .map((page) => fs.readFileSync(path.join(OUT, page), 'utf8'))
      .join('\n');
    expect(precachedCode.filter((p) => !pages.includes(p))).toEqual([]);
    expect(bytesOf(precachedCode)).toBeLessThan(bytesOf(code) / 2);

    // First use of the Files view on this first, uncontrolled visit: its code is fetched past the
    // worker, and the page names it for the worker to keep.
    await page.goto(`${runtime.appOrigin}/#/files`);
    await page.getByRole('list', { name: 'Projects' }).waitFor();
    const filesViewCode = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((entry) => new URL(entry.name).pathname)
        .filter((p) => p.startsWith('/_next/static/') && p.endsWith('.js')),
    );
    const lazyCode = filesViewCode.filter((p) => !precache.includes(p));
    expect(lazyCode.length).toBeGreaterThan(0);
    await waitUntil(async () => {
      const { lazy } = await cachedPaths(page);
      return lazyCode.every((p) => lazy.includes(p));
    }, 'the Files view’s code is cached after its first use');

    // Controlled from now on: the Devices view's code is cached as it passes through the worker.
    await page.goto(`${runtime.appOrigin}/#/`);
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await waitConnected(page);
    await page.goto(`${runtime.appOrigin}/#/devices`);
    await page.locator('main.devices').waitFor();

    expect(await runtime.stop()).toBe(0);
    const offline = await page.reload();
    expect(offline?.fromServiceWorker()).toBe(true);
    await page.locator('main.devices').waitFor();
    await page.goto(`${runtime.appOrigin}/#/files`);
    await page.getByRole('list', { name: 'Projects' }).waitFor();
    expect(await page.getByText('Loading…', { exact: true }).count()).toBe(0);
  });
});
