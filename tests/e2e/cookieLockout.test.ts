import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { connectChromium } from '../fixtures/sharedChromium';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import {
  createShellSession,
  newPairingCode,
  pairThroughLink,
  sendCommand,
  waitCommandFinished,
  waitConnected,
} from './appHarness';
import { waitUntil } from '../fixtures/waitUntil';

const PREVIEW_ID = '0123456789abcdef0123456789abcdef';
const COOKIES = 60;
const COOKIE_BYTES = 3_900;

describe('SEC-8 cookies set on the app domain never lock the app out', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let browser: Browser;
  let context: BrowserContext | null = null;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    browser = await connectChromium();
  });
  afterEach(async () => {
    await context?.close();
    context = null;
  });
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  /** A paired app in a fresh browser profile, under its service worker, connected. */
  async function openPairedApp(): Promise<{ app: Page; appCookies: () => Promise<number> }> {
    context = await browser.newContext();
    const app = await context.newPage();
    await pairThroughLink(app, runtime.appOrigin, await newPairingCode(runtime));
    await app.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    await app.reload();
    await app.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await waitConnected(app);
    const own = context;
    return { app, appCookies: async () => (await own.cookies(runtime.appOrigin)).length };
  }

  /**
   * What a preview page (a subdomain of the app host) can do: write cookies for the parent
   * domain. Returns how many bytes of cookies the page then sees.
   */
  async function stuffCookies(page: Page): Promise<number> {
    return page.evaluate(
      ({ count, bytes }) => {
        for (let i = 0; i < count; i++) {
          const name = `stuffed${i}`;
          document.cookie = `${name}=${'x'.repeat(bytes - name.length)}; domain=hbcode.localhost; path=/; max-age=31536000`;
        }
        return document.cookie.length;
      },
      { count: COOKIES, bytes: COOKIE_BYTES },
    );
  }

  async function runCommand(app: Page, command: string): Promise<string> {
    await createShellSession(app);
    await sendCommand(app, command);
    return waitCommandFinished(app, command);
  }

  /** The app got its connection back by itself, its cookies are cleared, and a command runs. */
  async function expectRecovered(app: Page, appCookies: () => Promise<number>, command: string): Promise<void> {
    await waitConnected(app);
    await waitUntil(async () => (await appCookies()) === 0, 'the browser drops the cookies of the app domain', 30_000);
    expect(await runCommand(app, command)).toBe('exit 0');
  }

  it('SEC-8 a page on a preview origin sets 60 cookies of 3.9 KB for hbcode.localhost; the app, opened again, connects and works, and the cookies end up cleared', async () => {
    const { app, appCookies } = await openPairedApp();
    const preview = await app.context().newPage();
    await preview.goto(`http://p-${PREVIEW_ID}.hbcode.localhost:${runtime.port}/page-of-a-preview`);
    expect(await stuffCookies(preview)).toBeGreaterThan(COOKIES * COOKIE_BYTES);
    await preview.close();

    await app.reload();
    await expectRecovered(app, appCookies, 'echo after-preview-cookies');
  });

  // The app's own page writes the same cookies below: a preview origin's page makes requests of
  // its own (its icon) whose answers may clear them before the app is even reopened.
  it('SEC-8 after 60 cookies of 3.9 KB are set for hbcode.localhost, the reopened app connects, works, and the cookies end up cleared', async () => {
    const { app, appCookies } = await openPairedApp();
    expect(await stuffCookies(app)).toBeGreaterThan(COOKIES * COOKIE_BYTES);
    expect(await appCookies()).toBe(COOKIES);

    // The app opens again from its service worker and must get its connection back by itself.
    await app.reload();
    await expectRecovered(app, appCookies, 'echo cookies-cleared');
  });

  it('SEC-8 an open app whose connection drops while such cookies are set reconnects without a reload, and the cookies end up cleared', async () => {
    const { app, appCookies } = await openPairedApp();
    expect(await stuffCookies(app)).toBeGreaterThan(COOKIES * COOKIE_BYTES);
    expect(await appCookies()).toBe(COOKIES);

    const port = runtime.port;
    expect(await runtime.stop()).toBe(0);
    await app.getByText('Connected', { exact: true }).waitFor({ state: 'detached' });
    runtime = await startRuntimeProcess({ port, dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });

    await expectRecovered(app, appCookies, 'echo reconnected');
  });
});
