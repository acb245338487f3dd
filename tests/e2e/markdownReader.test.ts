import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDbSchema } from '../../lib/client/appDb';
import type * as ReaderCache from '../../lib/client/readerCache';
import { connectChromium } from '../fixtures/sharedChromium';
import { readabilityCases } from '../fixtures/readabilityCorpus';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { picturedPageRoutes } from '../fixtures/picturedPage';
import { htmlPage, startTestWebServer, type TestWebServer } from '../fixtures/testWebServer';
import { loadModuleInBlankPage } from './moduleInPage';
import {
  createShellSession,
  keptScreenshotPath,
  pairThroughLink,
  pairUnderServiceWorker,
  screenshotPath,
  sendCommand,
  startupPairingCode,
} from './appHarness';
import { waitUntil } from '../fixtures/waitUntil';

// MD-1, MD-3, SEC-3 and offline reading (PWA-3) in real Chromium against the real runtime: a page
// served by a local web server opens as Markdown, its links open in the reader, and after the
// runtime stops and the page reloads, the saved page is still there. The pages are served on
// 127.0.0.1, so the runtime runs with the opt-in for local servers (SEC-5).

const withPrivateFetch = (command: string[]) => [...command, '--allow-private-fetch'];

const CODE_PAGE = `<!doctype html><html><head><title>A page with code</title></head><body>
<article><h1>A page with code</h1>
<p>The function below adds two numbers and returns their sum, which the rest of this article then explains at some length so that the extractor keeps it.</p>
<pre><code class="language-typescript">export function add(a: number, b: number): number {
  return a + b; // the sum
}</code></pre>
<p>That was the whole function. It is short, it is typed, and it shows the language taken from the class name of the code element.</p>
</article></body></html>`;

const HOSTILE_PAGE = `<!doctype html><html><head><title>Hostile page</title></head><body>
<article><h1>Hostile page</h1>
<p>This page tries to run scripts in the reader. None of them may run, and no raw HTML may reach the app.</p>
<p><img src="x" onerror="window.__pwned = 'img'" alt="broken image"> An image with an error handler.</p>
<script>window.__pwned = 'script'</script>
<p><a href="javascript:window.__pwned='link'">a javascript link</a> and <a href="/corpus" title="The corpus page">a link back to the corpus page</a>.</p>
<p>Some more words so that Readability keeps this paragraph as part of the article it extracts from the page, which is long enough now to count.</p>
</article></body></html>`;

type SavedReaderPage = AppDbSchema['readerPages']['value'];

function readSavedReaderPages(page: Page): Promise<SavedReaderPage[]> {
  return page.evaluate(
    () =>
      new Promise<SavedReaderPage[]>((resolve, reject) => {
        const open = indexedDB.open('hbcode');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const request = db.transaction('readerPages').objectStore('readerPages').getAll();
          request.onerror = () => reject(request.error);
          request.onsuccess = () => {
            db.close();
            resolve(request.result as SavedReaderPage[]);
          };
        };
      }),
  );
}

describe('MD-1 the Markdown reader in Chromium', () => {
  let browser: Browser;
  let runtime: RuntimeProcess | undefined;
  let web: TestWebServer;
  const corpus = readabilityCases().find((c) => c.name === '001')!;
  /** The corpus page's site is down: the reader falls back to the saved copy. */
  let corpusDown = false;
  /** The user agents that asked for /dot.png. */
  const imageRequests: string[] = [];

  beforeAll(async () => {
    browser = await connectChromium();
    web = await startTestWebServer({
      '/corpus': (request, response) =>
        corpusDown
          ? response.writeHead(503, { 'content-type': 'text/plain' }).end('down')
          : htmlPage(corpus.source)(request, response),
      '/hostile': htmlPage(HOSTILE_PAGE),
      '/code': htmlPage(CODE_PAGE),
      ...picturedPageRoutes(imageRequests),
    });
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await runtime?.stopIfRunning();
  });

  it('MD-1 a page opens as Markdown through the runtime, links open in the reader, no raw HTML runs, and it reads again offline', async () => {
    runtime = await startRuntimeProcess({ wrap: withPrivateFetch });
    const context = await browser.newContext();
    const page = await context.newPage();
    await pairUnderServiceWorker(page, runtime);

    // Typed into the address field: the runtime fetches, the worker converts, the view renders.
    const corpusUrl = `${web.origin}/corpus`;
    await page.getByRole('link', { name: 'Web', exact: true }).click();
    await page.getByLabel('Web address').fill(corpusUrl);
    await page.getByRole('button', { name: 'Read', exact: true }).click();
    const article = page.locator('[data-testid="reader"] article');
    await article
      .getByRole('heading', { level: 1, name: 'Get your Frontend JavaScript Code Covered | Code' })
      .waitFor();
    expect(new URL(page.url()).hash).toBe(`#/read?url=${encodeURIComponent(corpusUrl)}`);
    expect(await article.getAttribute('data-view')).toBe('article');
    await article.getByText('Nicolas Perriault', { exact: true }).waitFor();
    await article.getByText(/^The idea behind code coverage is to record which parts of your code/).waitFor();
    // Code blocks stay code; links were made absolute against the page's address.
    expect(await article.locator('pre code').count()).toBeGreaterThan(0);
    expect(
      await article.getByRole('link', { name: 'testing your frontend JavaScript code' }).getAttribute('href'),
    ).toBe(`${web.origin}/code/2013/testing-frontend-javascript-code-using-mocha-chai-and-sinon/`);
    const original = page.getByRole('link', { name: 'Open original' });
    expect(await original.getAttribute('href')).toBe(corpusUrl);
    expect(await original.getAttribute('target')).toBe('_blank');
    expect(await original.getAttribute('rel')).toContain('noopener');

    await page.screenshot({ path: screenshotPath('reader-article') });

    // The Markdown itself: shown as text, copied, saved as a .md file, headed by the article's title once.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: runtime.appOrigin });
    await page.getByRole('button', { name: 'Markdown text' }).click();
    const markdownText = (await page.getByTestId('reader-markdown-text').textContent()) ?? '';
    expect(markdownText.split('\n')[0]).toMatch(/^# \S/);
    expect(markdownText.split('\n').filter((line) => line === markdownText.split('\n')[0])).toHaveLength(1);
    await page.screenshot({ path: screenshotPath('reader-markdown-text') });
    await page.getByRole('button', { name: 'Copy Markdown' }).click();
    await page.getByText('Copied', { exact: true }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(markdownText);
    const save = page.getByRole('link', { name: 'Save .md' });
    expect(await save.getAttribute('download')).toMatch(/^[\p{L}\p{N}-]+\.md$/u);
    const download = page.waitForEvent('download');
    await save.click();
    // A download of a connected browser has no local path (tests/fixtures/sharedChromium.ts): save a copy.
    const downloaded = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-download-')), 'reader.md');
    await (await download).saveAs(downloaded);
    expect(fs.readFileSync(downloaded, 'utf8')).toBe(markdownText);
    fs.rmSync(path.dirname(downloaded), { recursive: true, force: true });
    await page.getByRole('button', { name: 'Markdown text' }).click();
    await article.waitFor();

    // MD-3: the whole page, and back to the article.
    await page.getByRole('button', { name: 'Full page' }).click();
    await page.locator('[data-testid="reader"] article[data-view="fullPage"]').waitFor();
    await page.getByRole('button', { name: 'Article' }).click();
    await page.locator('[data-testid="reader"] article[data-view="article"]').waitFor();

    // SEC-3: a hostile page renders as text; nothing of it runs; its links open in the reader.
    await page.getByRole('link', { name: 'Web', exact: true }).click();
    await page.getByLabel('Web address').fill(`${web.origin}/hostile`);
    await page.getByRole('button', { name: 'Read', exact: true }).click();
    await article.getByText(/This page tries to run scripts in the reader/).waitFor();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(await article.locator('script, img[onerror], iframe, [href^="javascript:"]').count()).toBe(0);
    await article.getByRole('link', { name: 'a link back to the corpus page' }).click();
    await article
      .getByRole('heading', { level: 1, name: 'Get your Frontend JavaScript Code Covered | Code' })
      .waitFor();
    expect(new URL(page.url()).hash).toBe(`#/read?url=${encodeURIComponent(corpusUrl)}`);

    // Saved on this device with both views, counted in the cache's running total.
    let saved: SavedReaderPage[] = [];
    await waitUntil(async () => {
      saved = await readSavedReaderPages(page);
      return saved.some((p) => p.url === corpusUrl && p.views.article !== undefined && p.views.fullPage !== undefined);
    }, 'the corpus page is saved with both views');
    expect(saved.find((p) => p.url === corpusUrl)!.byteLength).toBeGreaterThan(1000);

    // The site goes down while the runtime still runs. A reload is not the person opening the
    // address: the reader asks first (SEC-5) and meanwhile shows the saved copy, fetching nothing;
    // after Open, the saved copy stays, with the reason it could not be fetched again.
    corpusDown = true;
    await page.reload();
    await page.getByTestId('reader-confirm').waitFor();
    await article.getByText(/^The idea behind code coverage is to record which parts of your code/).waitFor();
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByText(/^Showing the saved copy: This address is not a web page \(text\/plain\)/).waitFor();
    await article.getByText(/^The idea behind code coverage is to record which parts of your code/).waitFor();

    // The runtime stops; the app reloads from its service worker and shows the saved page.
    expect(await runtime.stop()).toBe(0);
    await page.reload();
    await page.getByTestId('offline-banner').waitFor();
    await article
      .getByRole('heading', { level: 1, name: 'Get your Frontend JavaScript Code Covered | Code' })
      .waitFor();
    await article.getByText(/^The idea behind code coverage is to record which parts of your code/).waitFor();
    await page.getByText(/^Saved /).waitFor();
    // Offline nothing could be fetched, so nothing is asked (SEC-5): only the saved copy shows.
    expect(await page.getByTestId('reader-confirm').count()).toBe(0);
    await page.getByRole('button', { name: 'Full page' }).click();
    await page.locator('[data-testid="reader"] article[data-view="fullPage"]').waitFor();
    await context.close();
  }, 180_000);

  it("MD-5 a page's images come through the desktop, never from the phone; SVG is not shown; the kept copy shows offline (phone, light and dark)", async () => {
    const imageRuntime = await startRuntimeProcess({ wrap: withPrivateFetch });
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    try {
      await pairUnderServiceWorker(page, imageRuntime);
      const browserAgent = await page.evaluate(() => navigator.userAgent);
      await page.getByRole('link', { name: 'Web', exact: true }).click();
      await page.getByLabel('Web address').fill(`${web.origin}/pictured`);
      await page.getByRole('button', { name: 'Read', exact: true }).click();
      const article = page.locator('[data-testid="reader"] article');
      const dot = article.getByRole('img', { name: 'Coloured noise' });
      await dot.waitFor();
      expect(await dot.getAttribute('src')).toMatch(/^blob:/);
      await waitUntil(
        () => dot.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 320),
        'the picture is drawn',
      );
      expect(imageRequests.length).toBeGreaterThan(0);
      expect(imageRequests.every((agent) => agent.includes('HBCodeReader') && agent !== browserAgent)).toBe(true);
      const svg = article.locator('[data-image-state="missing"]').filter({ hasText: 'An SVG drawing' });
      await svg.waitFor();
      expect(await svg.textContent()).toContain('not shown: This address did not answer with an image the app shows');
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        await page.screenshot({ path: keptScreenshotPath('reader-images', `phone-${colorScheme}`) });
      }
      await page.emulateMedia({ colorScheme: 'light' });

      // Offline: the saved page, and its image from this device's copy.
      const asked = imageRequests.length;
      expect(await imageRuntime.stop()).toBe(0);
      await page.reload();
      await page.getByTestId('offline-banner').waitFor();
      await dot.waitFor();
      await waitUntil(
        () => dot.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 320),
        'the kept picture is drawn offline',
      );
      expect(imageRequests.length).toBe(asked);
    } finally {
      await context.close();
      await imageRuntime.stopIfRunning();
    }
  }, 120_000);

  it('PRV-6 an address in a message opens in the reader', async () => {
    const messageRuntime = await startRuntimeProcess({ wrap: withPrivateFetch });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await pairThroughLink(page, messageRuntime.appOrigin, startupPairingCode(messageRuntime));
      await createShellSession(page);
      const address = `${web.origin}/hostile`;
      await sendCommand(page, `echo see ${address}.`);
      const link = page.locator('[data-row="message"] a[data-reader-link]');
      await link.waitFor();
      // The sentence's full stop is not part of the address.
      expect(await link.textContent()).toBe(address);
      await link.click();
      await page
        .locator('[data-testid="reader"] article')
        .getByText(/This page tries to run scripts in the reader/)
        .waitFor();
      expect(new URL(page.url()).hash).toBe(`#/read?url=${encodeURIComponent(address)}`);
    } finally {
      await context.close();
      await messageRuntime.stop();
    }
  }, 120_000);

  it('MD-1 HL-1 a fenced code block in the reader keeps its language and is highlighted by the worker', async () => {
    const codeRuntime = await startRuntimeProcess({ wrap: withPrivateFetch });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await pairThroughLink(page, codeRuntime.appOrigin, startupPairingCode(codeRuntime));
      await page.getByRole('link', { name: 'Web', exact: true }).click();
      await page.getByLabel('Web address').fill(`${web.origin}/code`);
      await page.getByRole('button', { name: 'Read', exact: true }).click();
      const code = page.locator('[data-testid="reader"] article pre code.language-typescript');
      await code.waitFor();
      await page.locator('[data-testid="reader"] article pre code[data-highlighted="true"]').waitFor();
      // The text is unchanged, and the keyword and the comment are coloured differently from each other.
      expect(await code.textContent()).toBe(
        'export function add(a: number, b: number): number {\n  return a + b; // the sum\n}',
      );
      const colours = await code.evaluate((element) => {
        const colourOf = (text: string) => {
          const span = [...element.querySelectorAll('span')].find(
            (s) => s.children.length === 0 && s.textContent?.trim() === text,
          );
          return span ? getComputedStyle(span).color : null;
        };
        return { keyword: colourOf('export'), comment: colourOf('// the sum'), plain: getComputedStyle(element).color };
      });
      expect(colours.keyword).not.toBeNull();
      expect(colours.comment).not.toBeNull();
      expect(colours.keyword).not.toBe(colours.comment);
      expect(colours.keyword).not.toBe(colours.plain);
    } finally {
      await context.close();
      await codeRuntime.stop();
    }
  }, 120_000);

  it('MD-1 saved pages stay within their bound, least recently read first out, with a running total', async () => {
    const { context, page } = await loadModuleInBlankPage(
      browser,
      'lib/client/readerCache.ts',
      'hbReaderCache',
      'http://reader-cache-test.localhost',
    );
    const result = await page.evaluate(async () => {
      const { saveReaderPage, readSavedReaderPage } = (globalThis as unknown as { hbReaderCache: typeof ReaderCache })
        .hbReaderCache;
      const converted = (markdown: string) => ({
        markdown,
        view: 'article' as const,
        articleFound: true,
        title: 't',
        byline: null,
        siteName: null,
        publishedTime: null,
        sourceUrl: 'https://x/',
      });
      const save = (n: number, size: number) =>
        saveReaderPage(
          {
            url: `https://x/${n}`,
            finalUrl: `https://x/${n}`,
            views: { article: converted('a'.repeat(size)) },
            preferred: 'article',
          },
          3000,
        );
      const held = async (pages: number[]) => {
        const out: boolean[] = [];
        for (const n of pages) out.push((await readSavedReaderPage(`https://x/${n}`)) !== null);
        return out;
      };
      const total = () =>
        new Promise<number>((resolve) => {
          const open = indexedDB.open('hbcode');
          open.onsuccess = () => {
            const get = open.result.transaction('cacheUsage').objectStore('cacheUsage').get('readerPages');
            get.onsuccess = () => {
              open.result.close();
              resolve((get.result as { bytes: number } | undefined)?.bytes ?? -1);
            };
          };
        });
      for (const n of [0, 1, 2]) await save(n, 1000);
      const full = await total();
      await readSavedReaderPage('https://x/0'); // page 0 becomes the most recently read
      await save(3, 1000); // over the bound: page 1, the least recently read, goes
      const after = await held([0, 1, 2, 3]);
      await save(9, 4000); // larger than the whole bound: not kept
      return { full, after, total: await total(), tooLarge: await readSavedReaderPage('https://x/9') };
    });
    expect(result).toEqual({ full: 3000, after: [true, false, true, true], total: 3000, tooLarge: null });
    await context.close();
  });
});
