import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as MarkdownWorker from '../../lib/client/markdownWorker';
import type * as ReadWebPage from '../../lib/client/readWebPage';
import { REPO_ROOT } from '../../server/runtime/paths';
import { connectChromium } from '../fixtures/sharedChromium';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { htmlPage, startTestWebServer, type TestWebServer } from '../fixtures/testWebServer';
import { pairThroughLink, screenshotPath, startupPairingCode, waitConnected } from './appHarness';
import { waitUntil } from '../fixtures/waitUntil';
import { gotoPreview } from './previewHarness';

// SEC-5, SEC-9 (reader part): hostile pages against the reader in real Chromium. The runtime runs
// with --allow-private-fetch so that the app's own confirmation is what stands between a forged
// address and a request to the fake admin server (the runtime's refusal is tested on its own in
// tests/integration/web/fetchDestination.test.ts).

const NORMAL_PAGE = `<!doctype html><html><head><title>A normal page</title></head><body><article><h1>A normal page</h1>
<p>This page is an ordinary article with a few sentences, so that the extractor keeps it, and it should convert in the same tab right after a hostile page.</p>
<p>It has a second paragraph too, with commas, words, and more words, because Readability scores paragraphs by their length and their commas.</p></article></body></html>`;

/** 100,000 nested divs: before its input was bounded, one such page kept the worker busy for minutes. */
const DOM_BOMB = `<!doctype html><html><head><title>A DOM bomb</title></head><body>${'<div>'.repeat(100_000)}<p>Text at the bottom of the bomb.</p>${'</div>'.repeat(100_000)}</body></html>`;

const withPrivateFetch = (command: string[]) => [...command, '--allow-private-fetch'];

const SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 800 },
] as const;

/** The view at phone and desktop size, light and dark, saved for people to look at (copies of those looked at are in docs/screenshots). */
async function screenshots(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  for (const size of SIZES) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: screenshotPath(`${name}-${size.name}-${colorScheme}`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  if (before) await page.setViewportSize(before);
}

describe('SEC-5 SEC-9 hostile pages against the reader in Chromium', () => {
  let browser: Browser;
  let runtime: RuntimeProcess;
  let web: TestWebServer;
  let admin: TestWebServer;
  let projectDir: string;
  const adminHits: string[] = [];
  let adminUrl: string;

  beforeAll(async () => {
    browser = await connectChromium();
    admin = await startTestWebServer({
      '/internal-admin': (request, response) => {
        adminHits.push(request.url ?? '');
        htmlPage(NORMAL_PAGE.replaceAll('A normal page', 'Admin console'))(request, response);
      },
    });
    adminUrl = `${admin.origin}/internal-admin?action=delete`;
    projectDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-reader-attacks-'));
    fs.mkdirSync(path.join(projectDir, 'hostile'));
    // At load, with nothing clicked, the page forges the message a clicked web link would send.
    fs.writeFileSync(
      path.join(projectDir, 'hostile', 'index.html'),
      `<!doctype html><title>hostile</title><p>nothing to click</p><script>
let sent = 0;
const timer = setInterval(() => { window.top.postMessage({ type: 'hbcode.html.open', href: ${JSON.stringify(adminUrl)} }, '*'); if (++sent >= 20) clearInterval(timer); }, 100);
</script>`,
    );
    runtime = await startRuntimeProcess({ projectDirs: [projectDir], wrap: withPrivateFetch });
    web = await startTestWebServer({
      '/normal': htmlPage(NORMAL_PAGE),
      '/bomb': htmlPage(DOM_BOMB),
      '/outside': htmlPage(
        `<!doctype html><title>another site</title><script>location.href = ${JSON.stringify(`${runtime.appOrigin}/#/read?url=${encodeURIComponent(adminUrl)}`)};</script>`,
      ),
    });
  });
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    await web?.close();
    await admin?.close();
    if (projectDir) fs.rmSync(projectDir, { recursive: true, force: true });
  });

  async function pairedPage(): Promise<Page> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await pairThroughLink(page, runtime.appOrigin, await freshCode());
    return page;
  }

  let usedStartupCode = false;
  async function freshCode(): Promise<string> {
    if (!usedStartupCode) {
      usedStartupCode = true;
      return startupPairingCode(runtime);
    }
    const client = await runtime.connect();
    try {
      return (await client.call('pair.create')).code;
    } finally {
      client.close();
    }
  }

  /** Reads an ordinary page through the address field: proof that the reader is free, and a flush of anything fetched before. */
  async function readNormalPage(page: Page): Promise<void> {
    await page.getByRole('link', { name: 'Web', exact: true }).click();
    await page.getByLabel('Web address').fill(`${web.origin}/normal`);
    await page.getByRole('button', { name: 'Read', exact: true }).click();
    await page
      .locator('[data-testid="reader"] article')
      .getByText(/^This page is an ordinary article/)
      .waitFor({ timeout: 30_000 });
  }

  it('SEC-5 a preview that posts hbcode.html.open for a loopback admin address at load gets a confirmation, and the admin server no request', async () => {
    const page = await pairedPage();
    const hitsBefore = adminHits.length;
    // NOTE: not openPreview: the page sends the app to the reader as soon as it loads, so its frame may be gone before it is seen.
    await gotoPreview(page, runtime, projectDir, 'hostile/index.html');
    const confirmation = page.getByTestId('reader-confirm');
    await confirmation.waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).hash).toBe(`#/read?url=${encodeURIComponent(adminUrl)}`);
    expect(await page.getByTestId('reader-confirm-address').textContent()).toBe(adminUrl);
    expect(await page.getByTestId('reader-confirm-address').locator('strong').textContent()).toBe(
      new URL(adminUrl).host,
    );
    await readNormalPage(page);
    expect(adminHits.length - hitsBefore).toBe(0);
    await page.context().close();
  }, 120_000);

  it('SEC-5 another site navigating the app to #/read?url= fetches nothing until Open, then exactly once; Cancel fetches nothing', async () => {
    const page = await pairedPage();
    const hitsBefore = adminHits.length;
    await page.goto(`${web.origin}/outside`);
    await waitUntil(() => page.url().startsWith(runtime.appOrigin), 'the outside page sends the app to the reader');
    await waitConnected(page);
    await page.getByTestId('reader-confirm').waitFor();
    expect(await page.getByTestId('reader-confirm-address').textContent()).toBe(adminUrl);
    await screenshots(page, 'reader-confirmation');
    // Cancel goes to the sessions and fetches nothing.
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await waitUntil(() => new URL(page.url()).hash === '#/', 'Cancel leaves the reader');
    // A link from elsewhere into the open app (a hash change the app did not make) asks too.
    await page.evaluate((hash) => (location.hash = hash), `#/read?url=${encodeURIComponent(adminUrl)}`);
    await page.getByTestId('reader-confirm').waitFor();
    expect(adminHits.length - hitsBefore).toBe(0);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page
      .locator('[data-testid="reader"] article')
      .getByRole('heading', { name: 'Admin console' })
      .first()
      .waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('reader-confirm').count()).toBe(0);
    await readNormalPage(page);
    expect(adminHits.slice(hitsBefore)).toEqual(['/internal-admin?action=delete']);
    await page.context().close();
  }, 120_000);

  it('SEC-9 a DOM bomb of 100,000 nested divs shows its text with the reason, and a normal page then converts in the same tab', async () => {
    const page = await pairedPage();
    await page.getByRole('link', { name: 'Web', exact: true }).click();
    await page.getByLabel('Web address').fill(`${web.origin}/bomb`);
    await page.getByRole('button', { name: 'Read', exact: true }).click();
    const notice = page.getByTestId('reader-notice');
    await notice.waitFor({ timeout: 30_000 });
    expect(await notice.textContent()).toMatch(
      /^This page is too complex to extract an article from: its elements nest more than [\d,]+ deep\. Showing its text only\.$/,
    );
    await page.locator('[data-testid="reader"] article').getByText('Text at the bottom of the bomb.').waitFor();
    await screenshots(page, 'reader-too-complex');
    await readNormalPage(page);
    expect(await page.getByTestId('reader-notice').count()).toBe(0);
    await page.context().close();
  }, 120_000);

  it('SEC-9 a conversion past its deadline terminates the worker, the next page converts in a new one, and the reader shows the slow page as text with why', async () => {
    const bundle = await build({
      stdin: {
        contents:
          "export * from './lib/client/markdownWorker'; export { convertOrShowText } from './lib/client/readWebPage';",
        resolveDir: REPO_ROOT,
        loader: 'ts',
      },
      bundle: true,
      write: false,
      format: 'iife',
      globalName: 'hbMarkdownWorker',
      platform: 'browser',
      target: 'es2022',
      logLevel: 'silent',
    });
    // The app's origin serves the real worker script; the page runs its own copy of the client
    // module, added as an inline script, which only a test may do past the app's CSP.
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${runtime.appOrigin}/pair`);
    await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
    // Within the bounds, yet slow for Readability: chains of nested elements just under the depth limit.
    const slow = `<!doctype html><html><body>${`${'<div>'.repeat(120)}<p>deep words, deep words, deep words</p>${'</div>'.repeat(120)}`.repeat(6)}</body></html>`;
    const result = await page.evaluate(
      async ({ slow, normal }) => {
        const { convertInWorker, convertOrShowText } = (
          globalThis as unknown as { hbMarkdownWorker: typeof MarkdownWorker & typeof ReadWebPage }
        ).hbMarkdownWorker;
        const timedOut = await convertInWorker(
          slow,
          'https://slow.example/',
          { view: 'auto' },
          { deadlineMs: 50 },
        ).then(
          () => null,
          (error: { code?: string; message?: string }) => ({ code: error.code, message: error.message }),
        );
        const next = await convertInWorker(normal, 'https://normal.example/', { view: 'auto' });
        // What the reader shows for such a page: its text, and why.
        const shown = await convertOrShowText(slow, 'https://slow.example/', { deadlineMs: 50 });
        return {
          timedOut,
          nextTitle: next.title,
          nextView: next.view,
          shown: { notice: shown.notice, hasText: shown.markdown.includes('deep words, deep words') },
        };
      },
      { slow, normal: NORMAL_PAGE },
    );
    expect(result.timedOut).toEqual({
      code: 'conversion_timeout',
      message: 'Converting this page took longer than 0.05 s and was stopped.',
    });
    // A terminated worker answers nothing: this answer came from the new one.
    expect(result).toMatchObject({ nextTitle: 'A normal page', nextView: 'article' });
    expect(result.shown).toEqual({
      notice: 'Converting this page took longer than 0.05 s and was stopped. Showing its text only.',
      hasText: true,
    });
    await context.close();
  }, 120_000);
});
