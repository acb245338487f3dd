import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTACK_FILES } from '../fixtures/attackPage';
import { connectChromium } from '../fixtures/sharedChromium';
import { makePreviewTree, TREE_FILES, type PreviewTree } from '../fixtures/previewTree';
import { httpGet, startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { pairThroughLink, readStoredPairing, startupPairingCode } from './appHarness';
import { waitUntil } from '../fixtures/waitUntil';
import { openPreview, previewedFrame, shownPreviewId } from './previewHarness';

type Outcome = { ok: true; value: unknown } | { ok: false; name: string; message: string };

declare global {
  interface Window {
    __attack?: Record<string, Outcome>;
    __schemeRan?: string;
    attack?: {
      otherPreview(victim: string): Promise<Record<string, Outcome>>;
      forgeFromChild(): void;
      forgeFromPage(): void;
    };
  }
}

/** PRV-2 in the browser: what a previewed docs/report.html gets for each request (after the browser's own URL clean-up). */
const BROWSER_PATH_CASES: [string, number, string?][] = [
  ['../src/chart.js', 200, TREE_FILES['top/home/proj/src/chart.js']],
  ['../data/sales.json', 200, TREE_FILES['top/home/proj/data/sales.json']],
  ['/folder/', 200, TREE_FILES['top/home/proj/folder/index.html']],
  ['/folder', 200, TREE_FILES['top/home/proj/folder/index.html']],
  ['/inner/chart.js', 200, TREE_FILES['top/home/proj/src/chart.js']],
  ['/a..b.js', 200, TREE_FILES['top/home/proj/a..b.js']],
  ['../../secret.txt', 404],
  ['/%2e%2e/secret.txt', 404],
  ['/src%2f..%2f..%2fsecret.txt', 404],
  ['/src%5cchart.js', 404],
  ['/src/chart.js%3a', 404],
  ['/src/chart.js%00', 404],
  ['/%2eenv', 404],
  ['../.env', 404],
  ['/.git/config', 404],
  ['/leak', 404],
  ['/assets/logo.png', 404],
  ['/site/.vitepress/config.js', 404],
  ['/missing.js', 404],
];

describe('PRV-7 attacking preview pages in Chromium against the real runtime', () => {
  let tree: PreviewTree;
  let runtime: RuntimeProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token: string;
  const networkAnswers: Response[] = [];

  beforeAll(async () => {
    tree = makePreviewTree();
    for (const [name, content] of Object.entries(ATTACK_FILES)) {
      fs.mkdirSync(path.dirname(path.join(tree.project, name)), { recursive: true });
      fs.writeFileSync(path.join(tree.project, name), content);
    }
    runtime = await startRuntimeProcess({ projectDirs: [tree.project, tree.home], env: { HOME: tree.home } });
    browser = await connectChromium();
    context = await browser.newContext();
    context.on('response', (response) => networkAnswers.push(response));
    page = await context.newPage();
    await pairThroughLink(page, runtime.appOrigin, startupPairingCode(runtime));
    token = (await readStoredPairing(page))!.token;
    expect(token.length).toBeGreaterThan(20);
    await openPreview(page, runtime, tree.project, 'attack/attack.html');
    const frame = await previewedFrame(page, '/attack/attack.html');
    await waitUntil(() => frame.evaluate(() => window.__attack !== undefined), 'the attack page ran', 30_000);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    tree?.remove();
  });

  const outcomes = async () => (await previewedFrame(page, '/attack/attack.html')).evaluate(() => window.__attack!);

  it("PRV-7 the page cannot read the app's DOM or storage: every reach into the app window is a SecurityError", async () => {
    const seen = await outcomes();
    for (const name of ['topDocument', 'appDocumentThroughParents', 'topLocalStorage', 'topIndexedDb']) {
      expect(seen[name], name).toMatchObject({ ok: false, name: 'SecurityError' });
    }
    // The app's only frame is the preview origin's own host page, which holds no secret.
    expect(seen.appFrameAccess).toEqual({ ok: true, value: 'Preview' });
    expect(seen.ownDatabases).toEqual({ ok: true, value: [] });
    // Opening "hbcode" here makes a new, empty database of the preview origin: the app's is not reachable.
    expect(seen.openAppDatabase).toEqual({ ok: true, value: { created: true, names: [] } });
    expect(seen.caches).toEqual({ ok: true, value: [] });
  });

  it('PRV-7 the token is nowhere the page can reach: no cookie, no storage, not in the host page', async () => {
    const seen = await outcomes();
    expect(seen.reachable?.ok).toBe(true);
    const reachable = (seen.reachable as { value: { cookie: string; local: string; session: string; host: string } })
      .value;
    expect(reachable.cookie).toBe('');
    for (const text of Object.values(reachable)) expect(text).not.toContain(token);
    expect(reachable.host).toContain('data-app-origin');
    expect((await context.cookies()).length).toBe(0);
  });

  it('PRV-7 /rpc is out of reach: the upgrade from the preview origin is refused, a fetch is blocked by CORS, the own origin has no /rpc', async () => {
    const seen = await outcomes();
    expect(seen.rpcSocket).toEqual({ ok: true, value: { opened: false, code: 1006 } });
    const previewOrigin = new URL((await previewedFrame(page, '/attack/attack.html')).url()).origin;
    const refused = await httpGet(runtime.port, '/rpc', runtime.appHost, 'GET', {
      connection: 'Upgrade',
      upgrade: 'websocket',
      origin: previewOrigin,
      'sec-websocket-version': '13',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    });
    expect(refused.status).toBe(403);
    expect(seen.rpcFetch).toMatchObject({ ok: false, name: 'TypeError' });
    expect(seen.rpcOnOwnOrigin).toMatchObject({ ok: true, value: { status: 404, sniff: 'nosniff' } });
  });

  it('PRV-7 the page cannot register a service worker of its own: the server 404s every script but the preview worker', async () => {
    const seen = await outcomes();
    expect(seen.registerOwnWorker).toMatchObject({ ok: false, name: 'TypeError' });
    expect((seen.registerOwnWorker as { message: string }).message).toMatch(/bad HTTP response code \(404\)/);
    const scripts = await (
      await previewedFrame(page, '/attack/attack.html')
    ).evaluate(async () =>
      (await navigator.serviceWorker.getRegistrations()).map(
        (r) => r.active?.scriptURL ?? r.installing?.scriptURL ?? '',
      ),
    );
    expect(scripts.map((s) => new URL(s).pathname)).toEqual(['/.hbcode/sw.js']);
  });

  it('PRV-7 files outside the root and hidden files are 404 from the worker', async () => {
    const seen = await outcomes();
    for (const name of [
      'climbRelative',
      'climbEncoded',
      'climbEncodedSlash',
      'symlinkOut',
      'dotEnv',
      'dotGit',
      'symlinkToDotfile',
    ]) {
      expect(seen[name], name).toMatchObject({ ok: true, value: { status: 404, sniff: 'nosniff' } });
    }
  });

  it("PRV-7 another preview's files cannot be read: CORS blocks reading, and its origin's server 404s every file", async () => {
    const attacker = page;
    const victimPage = await context.newPage();
    await openPreview(victimPage, runtime, tree.project, 'docs/report.html');
    await previewedFrame(victimPage, '/docs/report.html');
    const victimId = await shownPreviewId(victimPage);
    const victimOrigin = `http://p-${victimId}.hbcode.localhost:${runtime.port}`;
    const frame = await previewedFrame(attacker, '/attack/attack.html');
    const seen = await frame.evaluate((victim) => window.attack!.otherPreview(victim), victimOrigin);
    expect(seen.corsFetch).toMatchObject({ ok: false, name: 'TypeError' });
    expect(seen.noCorsFetch).toEqual({ ok: true, value: { type: 'opaque', status: 0 } });
    expect(seen.image).toMatchObject({ ok: false });
    const answered = networkAnswers.filter(
      (r) => r.url() === `${victimOrigin}/docs/report.html` && !r.fromServiceWorker(),
    );
    expect(answered.length).toBeGreaterThan(0);
    for (const response of answered) expect(response.status()).toBe(404);
    expect(
      (await httpGet(runtime.port, '/docs/report.html', `p-${victimId}.hbcode.localhost:${runtime.port}`)).status,
    ).toBe(404);
    await victimPage.close();
  });

  it('PRV-7 the page cannot navigate the top window or open windows (the sandbox has no such flags)', async () => {
    const seen = await outcomes();
    expect(seen.navigateTop).toMatchObject({ ok: false, name: 'SecurityError' });
    expect(seen.openWindow).toEqual({ ok: true, value: 'null' });
    expect(page.url()).toContain('#/preview?');
    expect(context.pages().every((p) => !p.url().startsWith('https://example.org'))).toBe(true);
  });

  it('PRV-7 PRV-4 other schemes do nothing, and forged messages (nested frame, bad scheme, extra fields) are ignored', async () => {
    const frame = await previewedFrame(page, '/attack/attack.html');
    for (const link of ['#js-link', '#data-link', '#file-link']) await frame.locator(link).click();
    await frame.evaluate(() => {
      window.attack!.forgeFromPage();
      window.attack!.forgeFromChild();
    });
    await frame.waitForFunction(() => document.querySelector('iframe')?.contentDocument?.readyState === 'complete');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await frame.evaluate(() => window.__schemeRan ?? null)).toBeNull();
    expect(new URL(frame.url()).pathname).toBe('/attack/attack.html');
    expect(page.url()).toContain('#/preview?');
    expect(await page.getByRole('button', { name: 'Back' }).isDisabled()).toBe(true);
  });

  it('PRV-7 the previewed page cannot take its own frame off the preview origin: the navigation is refused and the page put back', async () => {
    const requested: string[] = [];
    context.on('request', (request) => requested.push(request.url()));
    const frame = await previewedFrame(page, '/attack/attack.html');
    await frame.evaluate(() => {
      window.location.href = 'https://example.org/leave';
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const back = await previewedFrame(page, '/attack/attack.html');
    await waitUntil(() => back.evaluate(() => window.__attack !== undefined), 'the attack page is back');
    expect(requested.filter((url) => url.startsWith('https://example.org'))).toEqual([]);
    expect(page.frames().some((f) => f.url().startsWith('https://example.org'))).toBe(false);
  });

  it('PRV-2 requests made by a previewed page follow the path rules (relative, encoded, dotfiles, symlinks, folders)', async () => {
    await openPreview(page, runtime, tree.project, 'docs/report.html');
    const frame = await previewedFrame(page, '/docs/report.html');
    const answers = await frame.evaluate(
      async (paths) => {
        const out: { status: number; body: string }[] = [];
        for (const p of paths) {
          const r = await fetch(p);
          out.push({ status: r.status, body: await r.text() });
        }
        return out;
      },
      BROWSER_PATH_CASES.map(([p]) => p),
    );
    BROWSER_PATH_CASES.forEach(([p, status, body], i) => {
      expect(answers[i]!.status, p).toBe(status);
      // An HTML answer also carries the navigation script after the document end (PRV-4).
      if (body !== undefined) expect(answers[i]!.body.startsWith(body), p).toBe(true);
    });
  });

  it('PRV-1 PRV-2 a document directly in the home folder reads only itself, in the browser too', async () => {
    await openPreview(page, runtime, tree.home, 'page.html');
    const frame = await previewedFrame(page, '/page.html');
    const statuses = await frame.evaluate(async () =>
      Promise.all(
        ['/page.html', 'secret.txt', 'proj/src/chart.js', '/proj/docs/report.html'].map(
          async (p) => (await fetch(p)).status,
        ),
      ),
    );
    expect(statuses).toEqual([200, 404, 404, 404]);
  });
});
