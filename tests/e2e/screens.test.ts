import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeHash, type AppRoute } from '../../lib/client/appRoute';
import { REPO_ROOT } from '../../server/runtime/paths';
import { htmlPage, startTestWebServer, type TestWebServer } from '../fixtures/testWebServer';
import { waitUntil } from '../fixtures/waitUntil';
import { commandRow, newPairingCode, pairThroughLink } from './appHarness';
import { seedShellSession, useAppSuite } from './appSuite';
import { boxOf, docsScreenshotPath, MIN_TARGET_PX, screenFacts } from './screensHarness';

// UX-4, PWA-5: every screen of the app at phone and desktop size, light and dark, measured from
// the DOM (nothing scrolls sideways, every control at least 44 px) and photographed for the
// README. On the desktop the wide layout (UX-6) puts the list beside the timeline and the output beside
// the timeline. The reader's page comes from a local web server, so the runtime may fetch it (SEC-5).

const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const DESKTOP: BrowserContextOptions = { viewport: { width: 1440, height: 900 } };
const SESSION_TITLE = 'Release checklist';
const COMMAND = `for i in $(seq 1 40); do echo "step $i of the release: build, test, package"; done`;
/** A failed command with a line longer than a phone's width: marked failed, its lines wrapped on request (UX-2). */
const FAILING = `echo "checking the release notes: $(seq -s ' ' 1 40)"; exit 3`;
const ARTICLE = `<!doctype html><html><head><title>Release notes</title></head><body><article><h1>Release notes</h1>
<p>This release makes the app feel like a product: a layout that uses the width of a desktop, icons that render everywhere, and an install button when the browser offers one.</p>
<p>It also shows how much this device stores to read offline, and clears it on request, keeping the pairing and every message not sent yet.</p>
</article></body></html>`;

/** A project with linked Markdown, an image and an HTML page, as a person's repository would have. */
function writeProject(project: string): void {
  fs.mkdirSync(path.join(project, 'docs', 'img'), { recursive: true });
  fs.mkdirSync(path.join(project, 'docs', 'site'), { recursive: true });
  fs.writeFileSync(
    path.join(project, 'docs', 'guide.md'),
    [
      '# Guide',
      '',
      'Read the [setup steps](../docs/setup.md) first, then open [the site](site/index.html).',
      '',
      '![The project logo](img/logo.png)',
      '',
      'A [link outside](../../outside.md) is refused; [the web](https://example.com/) stays external.',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(project, 'docs', 'setup.md'), '# Setup\n\nInstall the runtime, then pair this device.\n');
  fs.writeFileSync(
    path.join(project, 'docs', 'site', 'index.html'),
    '<!doctype html><title>Site</title><h1>The project site</h1><p>Served from the project folder.</p>',
  );
  fs.copyFileSync(
    path.join(REPO_ROOT, 'public', 'icons', 'icon-192.png'),
    path.join(project, 'docs', 'img', 'logo.png'),
  );
  fs.writeFileSync(path.join(project, 'README.md'), '# Demo project\n');
}

describe('UX-4 every screen at phone and desktop size, light and dark', () => {
  let web: TestWebServer;
  let project: string;
  // The reader's page comes from a web server on loopback: the runtime may fetch it.
  const suite = useAppSuite({
    runtime: async ({ projectDir }) => {
      project = projectDir;
      writeProject(project);
      web = await startTestWebServer({ '/notes': htmlPage(ARTICLE) });
      return { wrap: (command) => [...command, '--allow-private-fetch'] };
    },
  });
  afterAll(async () => {
    await web?.close();
  });

  beforeAll(async () => {
    await seedShellSession(suite.runtime, SESSION_TITLE, [COMMAND, FAILING]);
  }, 120_000);

  const go = (page: Page, route: AppRoute) => page.evaluate((hash) => (location.hash = hash), routeHash(route));

  for (const [device, options] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    it(`UX-4 ${device} ${options.viewport!.width}x${options.viewport!.height}: pair, list, session, viewer, folder, file, preview, reader, accounts, devices and settings fit the width with 44 px targets (screenshots)`, async () => {
      const context = await suite.browser.newContext(options);
      const page = await context.newPage();
      const width = options.viewport!.width;
      const visited: string[] = [];
      const check = async (screen: string) => {
        visited.push(screen);
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme });
          await page.screenshot({ path: docsScreenshotPath(`${device}-${screen}-${colorScheme}`) });
          const facts = await screenFacts(page);
          // Soft: one screen's fault still leaves the screenshots and facts of the others.
          expect.soft(facts.viewportWidth, `${screen} ${colorScheme}`).toBe(width);
          expect
            .soft(facts.scrollWidth, `${screen} ${colorScheme}: nothing scrolls sideways`)
            .toBeLessThanOrEqual(width);
          expect.soft(facts.overflowing, `${screen} ${colorScheme}: nothing sticks out sideways`).toEqual([]);
          expect.soft(facts.smallTargets, `${screen} ${colorScheme}: controls under ${MIN_TARGET_PX} px`).toEqual([]);
        }
        await page.emulateMedia({ colorScheme: 'light' });
      };
      try {
        const code = await newPairingCode(suite.runtime);
        await page.goto(`${suite.runtime.appOrigin}/pair#code=${encodeURIComponent(code)}`);
        await waitUntil(
          async () => (await page.getByLabel('Pairing code').inputValue()) === code,
          'the pairing link fills in its code',
        );
        await check('pair');
        await pairThroughLink(page, suite.runtime.appOrigin, code);

        const openSession = page.getByRole('button', { name: SESSION_TITLE }).filter({ hasText: SESSION_TITLE });
        await openSession.waitFor();
        await check('list');
        const clipped = await page.evaluate(() =>
          [...document.querySelectorAll<HTMLElement>('.session-entry')].flatMap((entry) => {
            const outer = entry.getBoundingClientRect();
            return [...entry.querySelectorAll<HTMLElement>('.session-time, [data-last-activity]')]
              .map((part) => ({ text: part.textContent ?? '', box: part.getBoundingClientRect() }))
              .filter(({ box }) => box.width === 0 || box.right > outer.right + 0.5 || box.left < outer.left - 0.5)
              .map(({ text }) => text);
          }),
        );
        expect(clipped, "a session's last line and time stay inside its entry").toEqual([]);
        await openSession.click();
        await commandRow(page, COMMAND).waitFor();
        const failing = commandRow(page, FAILING);
        await failing.locator('[data-status="exited"]').waitFor();
        expect(await failing.getAttribute('data-failed'), 'a command that exited 3 is marked failed').toBe('true');
        expect(await failing.getByText('failed', { exact: true }).count()).toBe(1);
        await page.locator('.card').filter({ has: failing }).getByRole('button', { name: 'Wrap lines' }).click();
        const tail = failing.getByLabel('Last lines of the output');
        await waitUntil(
          async () => await tail.evaluate((pre) => pre.scrollWidth <= pre.clientWidth + 1),
          'the wrapped lines fit the row',
        );
        await check('session');
        if (device === 'desktop') {
          // UX-6 the wide layout: the list and the timeline side by side, both whole.
          const list = await boxOf(page, '.list-pane');
          const timeline = await boxOf(page, '[data-testid="timeline"]');
          expect(list, 'the list is on screen beside the session').not.toBeNull();
          expect(timeline).not.toBeNull();
          expect(list!.right).toBeLessThanOrEqual(timeline!.left + 1);
          expect(timeline!.right).toBeLessThanOrEqual(width);
          expect(
            Math.min(list!.bottom, timeline!.bottom) - Math.max(list!.top, timeline!.top),
            'they share the height',
          ).toBeGreaterThan(300);
          expect(await openSession.getAttribute('aria-current'), 'the list marks the open session').toBe('page');
        }

        await commandRow(page, COMMAND).click();
        // UX-1: a finished command opens at its end.
        await page
          .getByTestId('output')
          .getByText('step 40 of the release: build, test, package', { exact: true })
          .waitFor();
        await check('viewer');
        if (device === 'desktop') {
          const timeline = await boxOf(page, '[data-testid="timeline"]');
          const output = await boxOf(page, '[data-testid="output"]');
          expect(timeline, 'the timeline stays beside the output').not.toBeNull();
          expect(timeline!.right).toBeLessThanOrEqual(output!.left + 1);
          expect(output!.right).toBeLessThanOrEqual(width);
        }
        await page.getByRole('button', { name: 'Back to timeline' }).click();

        await go(page, { kind: 'files', projectDirectory: project, path: 'docs' });
        await page.getByRole('link', { name: /guide\.md/ }).waitFor();
        await check('folder');
        await page.getByRole('link', { name: /guide\.md/ }).click();
        await page.locator('img[data-project-image="docs/img/logo.png"]').waitFor();
        await check('file');

        await go(page, { kind: 'preview', projectDirectory: project, path: 'docs/site/index.html' });
        await page.locator('iframe.preview-frame').waitFor();
        await waitUntil(
          () =>
            page
              .frames()
              .some((frame) => new URL(frame.url() || 'about:blank').pathname.endsWith('/docs/site/index.html')),
          'the preview shows the page',
        );
        await check('preview');

        await page.getByRole('link', { name: 'Web', exact: true }).click();
        await page.getByLabel('Web address').fill(`${web.origin}/notes`);
        await page.getByRole('button', { name: 'Read', exact: true }).click();
        await page.locator('[data-testid="reader"] article').getByRole('heading', { name: 'Release notes' }).waitFor();
        await check('reader');
        // The reader's screen lists what this device saved (MD-1, PWA-3).
        await page.getByRole('link', { name: 'Web', exact: true }).click();
        await page.getByRole('list', { name: 'Saved pages' }).getByText('Release notes').waitFor();
        await check('web');

        await page.getByRole('link', { name: 'Accounts' }).click();
        await page.getByLabel('New profile name').waitFor();
        await check('accounts');
        await page.getByRole('link', { name: 'Devices' }).click();
        await page.waitForURL(/#\/devices$/);
        await page.locator('main.devices').waitFor();
        await check('devices');
        await page.getByRole('link', { name: 'Settings' }).click();
        await page.getByTestId('storage-use').waitFor();
        await check('settings');
        expect(visited).toEqual([
          'pair',
          'list',
          'session',
          'viewer',
          'folder',
          'file',
          'preview',
          'reader',
          'web',
          'accounts',
          'devices',
          'settings',
        ]);
      } finally {
        await context.close();
      }
    }, 240_000);
  }
});
