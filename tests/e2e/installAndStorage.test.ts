import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { routeHash } from '../../lib/client/appRoute';
import { REPO_ROOT } from '../../server/runtime/paths';
import { waitUntil } from '../fixtures/waitUntil';
import { newPairingCode, pairThroughLink, readStoredPairing, waitConnected } from './appHarness';
import { pairedPage, useAppSuite } from './appSuite';
import { docsScreenshotPath } from './screensHarness';

// PWA-6 installing and storage (persistence asked after an offline save, its use shown and
// cleared, the pairing and the outbox kept) and FILE-4 relative links and images of a project's
// Markdown, in real Chromium against the real suite.runtime.

const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1';

/** Dispatches what Chromium sends when the app can be installed: an Event with prompt() and userChoice. */
const offerInstall = (page: Page, outcome: 'accepted' | 'dismissed') =>
  page.evaluate((outcome) => {
    const event = Object.assign(new Event('beforeinstallprompt', { cancelable: true }), {
      prompt: () => {
        (window as unknown as { promptCalls: number }).promptCalls =
          ((window as unknown as { promptCalls?: number }).promptCalls ?? 0) + 1;
        return Promise.resolve();
      },
      userChoice: Promise.resolve({ outcome, platform: 'web' }),
    });
    window.dispatchEvent(event);
    return event.defaultPrevented;
  }, outcome);

/** Records of an IndexedDB store of the app's database. */
const countRecords = (page: Page, store: string) =>
  page.evaluate(
    (store) =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('hbcode');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const request = open.result.transaction(store).objectStore(store).count();
          request.onsuccess = () => {
            open.result.close();
            resolve(request.result);
          };
          request.onerror = () => reject(request.error);
        };
      }),
    store,
  );

/** The project's Markdown guide, what it links to and its image. */
function writeProject(project: string): void {
  fs.mkdirSync(path.join(project, 'docs', 'img'), { recursive: true });
  fs.mkdirSync(path.join(project, 'docs', 'site'), { recursive: true });
  fs.writeFileSync(
    path.join(project, 'docs', 'guide.md'),
    '# Guide\n\nRead the [setup steps](../docs/setup.md), open [the site](site/index.html).\n\n![The logo](img/logo.png)\n\nA [way out](../../secret.md), [the web](https://example.com/).\n',
  );
  fs.writeFileSync(path.join(project, 'docs', 'setup.md'), '# Setup steps\n\nPair this device.\n');
  fs.writeFileSync(path.join(project, 'docs', 'site', 'index.html'), '<!doctype html><title>Site</title><h1>Site</h1>');
  fs.copyFileSync(
    path.join(REPO_ROOT, 'public', 'icons', 'icon-192.png'),
    path.join(project, 'docs', 'img', 'logo.png'),
  );
}

describe('PWA-6 PWA-1 FILE-4 installing, storage and project Markdown', () => {
  let project: string;
  const suite = useAppSuite({
    runtime: ({ projectDir }) => {
      project = projectDir;
      writeProject(project);
      return {};
    },
  });

  const paired = async (options: BrowserContextOptions = {}) => {
    const page = await pairedPage(suite, options, await newPairingCode(suite.runtime));
    return { context: page.context(), page };
  };

  it('PWA-6 Install appears when the browser offers it, the tap shows the kept prompt, and it is gone once installed', async () => {
    const { context, page } = await paired();
    try {
      const install = page.locator('header').getByRole('button', { name: 'Install' });
      expect(await install.count(), 'nothing offered yet').toBe(0);
      expect(await offerInstall(page, 'dismissed'), "the browser's own infobar is held back").toBe(true);
      await install.waitFor();
      await install.click();
      await waitUntil(
        () => page.evaluate(() => (window as unknown as { promptCalls?: number }).promptCalls === 1),
        'the tap calls prompt()',
      );
      // A prompt shows once: dismissed, it is spent until the browser offers again.
      await install.waitFor({ state: 'detached' });
      await offerInstall(page, 'accepted');
      await install.waitFor();
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByRole('button', { name: 'Install HB Code' }).waitFor();
      await page.evaluate(() => window.dispatchEvent(new Event('appinstalled')));
      await install.waitFor({ state: 'detached' });
      await page.getByText('HB Code is installed on this device.').waitFor();
      expect(await page.evaluate(() => (window as unknown as { promptCalls?: number }).promptCalls)).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('PWA-6 on iOS Safari, Install shows the Share → Add to Home Screen steps', async () => {
    const { context, page } = await paired({
      userAgent: IPHONE_SAFARI,
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    try {
      await page.locator('header').getByRole('button', { name: 'Install' }).click();
      const steps = page.getByRole('note').filter({ hasText: 'Add to Home Screen' });
      await steps.waitFor();
      expect(await steps.textContent()).toMatch(/Share.*then Add to Home Screen/);
      await page.screenshot({ path: docsScreenshotPath('phone-install-ios-light') });
    } finally {
      await context.close();
    }
  });

  it('PWA-1 PWA-5 the manifest and the theme-color meta match the app colours, and the manifest lists narrow and wide screenshots that exist', async () => {
    const context = await suite.browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${suite.runtime.appOrigin}/pair`);
      const manifest = (await page.evaluate(() =>
        fetch('/manifest.webmanifest').then((r) => r.json() as Promise<unknown>),
      )) as {
        theme_color: string;
        background_color: string;
        screenshots: { src: string; sizes: string; form_factor: string }[];
      };
      const colours: Record<string, { meta: string; body: string }> = {};
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        colours[scheme] = await page.evaluate(() => {
          const meta = [...document.querySelectorAll<HTMLMetaElement>('meta[name="theme-color"]')].find(
            (m) => !m.media || matchMedia(m.media).matches,
          )!;
          // The canvas resolves both to rgb(): compare colours, not spellings.
          const probe = document.createElement('div');
          probe.style.color = meta.content;
          document.body.append(probe);
          const resolved = getComputedStyle(probe).color;
          probe.remove();
          return { meta: resolved, body: getComputedStyle(document.body).backgroundColor };
        });
        expect(colours[scheme]!.meta, `${scheme}: theme-color is the page background`).toBe(colours[scheme]!.body);
      }
      const hex = (rgb: string) =>
        '#' +
        (rgb.match(/\d+/g) ?? [])
          .slice(0, 3)
          .map((n) => Number(n).toString(16).padStart(2, '0'))
          .join('');
      expect(manifest.theme_color.toLowerCase()).toBe(hex(colours.light!.body));
      expect([hex(colours.light!.body), hex(colours.dark!.body)]).toContain(manifest.background_color.toLowerCase());
      expect(manifest.screenshots.map((s) => s.form_factor).sort()).toEqual(['narrow', 'wide']);
      for (const shot of manifest.screenshots) {
        // The PNG header's width and height are what the manifest says (sizes "WxH").
        const size = await page.evaluate(async (src) => {
          const response = await fetch(src);
          const header = new DataView(await response.arrayBuffer());
          return {
            status: response.status,
            type: response.headers.get('content-type'),
            size: `${header.getUint32(16)}x${header.getUint32(20)}`,
          };
        }, shot.src);
        expect(size, shot.src).toEqual({ status: 200, type: 'image/png', size: shot.sizes });
      }
    } finally {
      await context.close();
    }
  });

  it('PWA-6 persistence is asked after the first offline save, never on load; storage is shown and cleared, keeping the pairing and the outbox', async () => {
    const context = await suite.browser.newContext();
    // Counts the app's requests; the browser would otherwise decide by itself, silently.
    await context.addInitScript(() => {
      const calls: number[] = [];
      Object.assign(window, { persistCalls: calls });
      StorageManager.prototype.persist = () => {
        calls.push(Date.now());
        return Promise.resolve(true);
      };
      StorageManager.prototype.persisted = () => Promise.resolve(false);
    });
    const page = await context.newPage();
    const persistCalls = () =>
      page.evaluate(() => (window as unknown as { persistCalls: number[] }).persistCalls.length);
    try {
      await pairThroughLink(page, suite.runtime.appOrigin, await newPairingCode(suite.runtime));
      await page.getByRole('button', { name: 'New session' }).first().waitFor();
      await page.reload();
      await waitConnected(page);
      expect(await persistCalls(), 'loading asks nothing').toBe(0);

      await page.evaluate(
        (hash) => (location.hash = hash),
        routeHash({ kind: 'files', projectDirectory: project, path: 'docs/setup.md' }),
      );
      await page.getByRole('heading', { name: 'Setup steps' }).waitFor();
      await waitUntil(async () => (await persistCalls()) === 1, 'a saved file asks to persist');
      expect(await countRecords(page, 'fileChunks')).toBeGreaterThan(0);

      // A message that could not be sent, and a runtime cache: one must stay, the other go.
      const before = await readStoredPairing(page);
      await page.evaluate(async () => {
        await new Promise<void>((resolve, reject) => {
          const open = indexedDB.open('hbcode');
          open.onsuccess = () => {
            const tx = open.result.transaction('outbox', 'readwrite');
            tx.objectStore('outbox').put({
              operationId: 'kept-op',
              sessionId: 'no-such-session',
              createdAt: Date.now(),
              seq: 1,
              state: 'failed',
              attempts: 1,
              error: 'offline',
              text: 'keep me',
            });
            tx.oncomplete = () => {
              open.result.close();
              resolve();
            };
            tx.onerror = () => reject(tx.error);
          };
        });
        await (await caches.open('hbcode-runtime-test')).put('/probe', new Response('cached'));
      });

      await page.getByRole('link', { name: 'Settings' }).click();
      const use = page.getByTestId('storage-use');
      await use.waitFor();
      expect(await use.textContent()).toMatch(
        /^\d+(\.\d)? (B|KiB|MiB|GiB) used of \d+(\.\d)? (B|KiB|MiB|GiB|TiB) this browser allows\.$/,
      );
      await page.getByRole('button', { name: 'Clear saved data…' }).click();
      // Asked first: nothing is gone until the confirmation.
      expect(await countRecords(page, 'fileChunks')).toBeGreaterThan(0);
      await page
        .getByRole('alertdialog', { name: 'Clear what this device saved?' })
        .getByRole('button', { name: 'Clear saved data' })
        .click();
      await page.getByRole('status').filter({ hasText: 'Cleared.' }).waitFor();

      expect(await countRecords(page, 'fileChunks'), 'saved file chunks are gone').toBe(0);
      expect(await countRecords(page, 'snapshots'), 'saved lists are gone').toBe(0);
      expect(await countRecords(page, 'outbox'), 'the unsent message stays').toBe(1);
      expect(await readStoredPairing(page), 'the pairing stays').toEqual(before);
      expect(await page.evaluate(() => caches.has('hbcode-runtime-test')), 'runtime caches are gone').toBe(false);
      await page.reload();
      await waitConnected(page);
    } finally {
      await context.close();
    }
  });

  it('FILE-4 FILE-3 a relative Markdown link opens the project file, an HTML link its preview, a relative image shows from a blob, a way out is refused', async () => {
    const { context, page } = await paired();
    try {
      await page.evaluate(
        (hash) => (location.hash = hash),
        routeHash({ kind: 'files', projectDirectory: project, path: 'docs/guide.md' }),
      );
      const image = page.locator('img[data-project-image="docs/img/logo.png"]');
      await image.waitFor();
      await waitUntil(
        () => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 192),
        'the project image is decoded',
      );
      expect(await image.getAttribute('src')).toMatch(/^blob:/);
      expect(await image.getAttribute('alt')).toBe('The logo');

      expect(await page.getByRole('link', { name: 'way out' }).count(), 'no link leaves the project').toBe(0);
      await page.getByText('This link leads outside the project.').waitFor();
      const web = page.getByRole('link', { name: 'the web' });
      expect(await web.getAttribute('href')).toBe('https://example.com/');
      expect(await web.getAttribute('target')).toBe('_blank');

      await page.getByRole('link', { name: 'setup steps' }).click();
      await page.getByRole('heading', { name: 'Setup steps' }).waitFor();
      expect(decodeURIComponent(new URL(page.url()).hash)).toBe(
        decodeURIComponent(routeHash({ kind: 'files', projectDirectory: project, path: 'docs/setup.md' })),
      );

      await page.goBack();
      await page.getByRole('link', { name: 'the site' }).click();
      await page.locator('iframe.preview-frame').waitFor();
      expect(decodeURIComponent(new URL(page.url()).hash)).toBe(
        decodeURIComponent(routeHash({ kind: 'preview', projectDirectory: project, path: 'docs/site/index.html' })),
      );
    } finally {
      await context.close();
    }
  });
});
