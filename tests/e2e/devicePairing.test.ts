import type { Browser, BrowserContextOptions, Page, WebSocket as PageSocket } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError } from '../../lib/client/rpcClient';
import { PROTOCOL_VERSION } from '../../lib/protocol/version';
import { connectChromium } from '../fixtures/sharedChromium';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { waitUntil } from '../fixtures/waitUntil';
import {
  newPairingCode,
  pairThroughLink,
  readQrCanvas,
  readStoredPairing,
  screenshotPath,
  startupPairingCode,
  waitConnected,
} from './appHarness';

const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
const MIN_TARGET_PX = 44;

/** The pixels of the QR code the app drew on its canvas. */
/** Controls of the devices screen smaller than a fingertip. */
const smallTargets = (page: Page) =>
  page.evaluate((min) => {
    const small: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>(
      'main button, main input:not([type=checkbox]), main label.check-row, header button, header a[href]',
    )) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && (r.height < min - 0.5 || r.width < min - 0.5))
        small.push(`${el.tagName} '${el.textContent?.trim()}' ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
    return small;
  }, MIN_TARGET_PX);

/** From now on, every text an alert of the page shows, however briefly (a MutationObserver's record). */
async function recordAlerts(page: Page): Promise<void> {
  await page.evaluate(() => {
    const shown: string[] = [];
    (window as unknown as { shownAlerts: string[] }).shownAlerts = shown;
    const record = () => {
      for (const alert of document.querySelectorAll('[role="alert"]')) {
        const text = alert.textContent?.trim();
        if (text && !shown.includes(text)) shown.push(text);
      }
    };
    new MutationObserver(record).observe(document.documentElement, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
  });
}

const recordedAlerts = (page: Page): Promise<string[]> =>
  page.evaluate(() => (window as unknown as { shownAlerts: string[] }).shownAlerts);

describe('DEV-1 pairing by QR code, the device list, revoking and signing out, in Chromium', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let browser: Browser;
  let first: Page;

  /** Whether the runtime still accepts this token (a fresh socket's auth.hello). */
  async function tokenAccepted(token: string): Promise<boolean> {
    const socket = runtime.openSocket();
    try {
      await socket.opened;
      await socket.call('auth.hello', { token, protocolVersion: PROTOCOL_VERSION });
      return true;
    } catch (error) {
      if (error instanceof RpcError && error.code === 'unauthorized') return false;
      throw error;
    } finally {
      socket.close();
    }
  }

  async function pairedPage(name: string): Promise<Page> {
    const page = await (await browser.newContext(PHONE)).newPage();
    await page.goto(`${runtime.appOrigin}/pair#code=${encodeURIComponent(await newPairingCode(runtime))}`);
    await page.getByLabel('Name of this device').fill(name);
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await waitConnected(page);
    return page;
  }

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    browser = await connectChromium();
    first = await (await browser.newContext(PHONE)).newPage();
    await pairThroughLink(first, runtime.appOrigin, startupPairingCode(runtime));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  it('DEV-1 DEV-2 a second browser pairs by scanning the QR code the first one shows; the first lists it and asks to revoke it, the second confirms and is signed out at once', async () => {
    await first.getByRole('link', { name: 'Devices' }).click();
    await first.getByRole('button', { name: 'Show a pairing code' }).click();
    const link = await waitUntil(() => readQrCanvas(first), 'the QR code is drawn and decodes', 15_000);
    const shownCode = (await first.getByLabel('Pairing code').textContent())!.trim();
    expect(link).toBe(`${runtime.appOrigin}/pair#code=${encodeURIComponent(shownCode)}`);
    expect(await first.getByRole('timer').textContent()).toMatch(/Expires in (10:00|9:[0-5]\d)/);
    expect(await smallTargets(first)).toEqual([]);
    for (const colorScheme of ['light', 'dark'] as const) {
      await first.emulateMedia({ colorScheme });
      await first.screenshot({ path: screenshotPath(`devices-pairing-qr-${colorScheme}`) });
    }

    const secondContext = await browser.newContext(PHONE);
    const second = await secondContext.newPage();
    const secondSockets: PageSocket[] = [];
    second.on('websocket', (socket) => secondSockets.push(socket));
    await second.goto(link);
    await waitUntil(
      async () => (await second.getByLabel('Pairing code').inputValue()) === shownCode,
      'the scanned link fills in the code',
    );
    await second.getByLabel('Name of this device').fill('Second phone');
    await second.getByRole('button', { name: 'Pair', exact: true }).click();
    await waitConnected(second);

    const listed = first.getByRole('listitem', { name: 'Second phone' });
    await listed.waitFor({ timeout: 20_000 });
    // DEV-1: the screen that showed the code says who used it, and shows the spent code no more.
    await first
      .getByRole('status')
      .filter({ hasText: 'Second phone paired with this code' })
      .waitFor({ timeout: 15_000 });
    expect(await first.getByLabel('Pairing code').count()).toBe(0);
    // The list may first show the device as paired but not yet connected; its hello follows.
    await waitUntil(
      async () => /Paired .* · last seen just now/.test((await listed.textContent()) ?? ''),
      'the second phone is listed as seen just now',
      30_000,
    );
    expect(await first.getByRole('listitem').filter({ hasText: 'This device' }).count()).toBe(1);
    for (const colorScheme of ['light', 'dark'] as const) {
      await first.emulateMedia({ colorScheme });
      await first.locator('#device-list').evaluate((heading) => heading.scrollIntoView());
      await first.screenshot({ path: screenshotPath(`devices-list-${colorScheme}`) });
      await first.locator('#notifications').evaluate((heading) => heading.scrollIntoView());
      await first.screenshot({ path: screenshotPath(`devices-notifications-${colorScheme}`) });
    }

    const live = secondSockets.filter((socket) => !socket.isClosed());
    expect(live.length).toBe(1);
    await listed.getByRole('button', { name: 'Revoke' }).click();
    await first.getByRole('button', { name: 'Ask to revoke' }).click();
    // DEV-2: nothing happens until the second phone confirms on its own screen; both show the request.
    await first.getByRole('status').filter({ hasText: 'Asked Second phone to confirm' }).waitFor({ timeout: 15_000 });
    await first.getByText(/Waiting for Second phone to confirm/).waitFor({ timeout: 15_000 });
    await second.getByRole('link', { name: 'Devices' }).click();
    const request = second.getByRole('alertdialog', { name: /Request from/ });
    await request.waitFor({ timeout: 15_000 });
    expect(live[0]!.isClosed()).toBe(false);
    expect(await smallTargets(second)).toEqual([]);
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const page of [first, second]) await page.emulateMedia({ colorScheme });
      await request.scrollIntoViewIfNeeded();
      await second.screenshot({ path: screenshotPath(`devices-revoke-request-phone-${colorScheme}`) });
      await first.setViewportSize({ width: 1440, height: 900 });
      await first.screenshot({ path: screenshotPath(`devices-revoke-waiting-desktop-${colorScheme}`) });
      await first.setViewportSize({ width: 390, height: 844 });
    }
    await request.getByRole('button', { name: 'Sign this device out' }).click();
    await second.getByRole('heading', { name: 'Pair this device' }).waitFor({ timeout: 15_000 });
    expect(live[0]!.isClosed()).toBe(true);
    expect(await second.getByRole('alert').filter({ hasText: /\S/ }).textContent()).toMatch(
      /revoked: signed out or removed from the device list/,
    );
    await waitUntil(async () => (await listed.count()) === 0, "the revoked device leaves the first one's list", 20_000);
    await secondContext.close();
  }, 120_000);

  it('DEV-1 a device renames itself in the list', async () => {
    await first.getByRole('link', { name: 'Devices' }).click();
    const mine = first.getByRole('listitem').filter({ hasText: 'This device' });
    await mine.getByRole('button', { name: 'Rename' }).click();
    await first.getByLabel('Device name').fill('Kitchen phone');
    await first.getByRole('button', { name: 'Save' }).click();
    await first.getByRole('listitem', { name: 'Kitchen phone' }).waitFor();
    const admin = await runtime.connect();
    const { devices } = await admin.call('devices.list');
    admin.close();
    expect(devices.map((d) => d.name)).toContain('Kitchen phone');

    await first.setViewportSize({ width: 1280, height: 800 });
    await first.getByRole('button', { name: /^(Show a pairing code|New code)$/ }).click();
    await waitUntil(() => readQrCanvas(first), 'the new QR code is drawn');
    expect(await first.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    for (const colorScheme of ['light', 'dark'] as const) {
      await first.emulateMedia({ colorScheme });
      await first.screenshot({ path: screenshotPath(`devices-desktop-${colorScheme}`) });
    }
    await first.setViewportSize({ width: 390, height: 844 });
  });

  it('DEV-1 Sign out asks first, then revokes this device on the runtime', async () => {
    const page = await pairedPage('Signs out');
    const { token } = (await readStoredPairing(page))!;
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('alertdialog', { name: 'Sign out of this device?' }).waitFor();
    await page.screenshot({ path: screenshotPath('devices-sign-out-confirm') });
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await tokenAccepted(token)).toBe(true);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await recordAlerts(page);
    await page.getByRole('button', { name: 'Sign out of this device' }).click();
    await page.getByRole('heading', { name: 'Pair this device' }).waitFor();
    expect(await page.getByRole('alert').filter({ hasText: /\S/ }).textContent()).toMatch(/You signed out/);
    // The revocation closes this device's socket before the sign-out is done: the app knows it
    // signed itself out, so the revoked alert is never shown, not even for a moment.
    const shown = await recordedAlerts(page);
    expect(shown.some((text) => /You signed out/.test(text))).toBe(true);
    expect(shown.filter((text) => /revoked/.test(text))).toEqual([]);
    expect(await tokenAccepted(token)).toBe(false);
    await page.context().close();
  }, 60_000);

  it('DEV-1 a sign-out made while the runtime is unreachable is sent once it is back', async () => {
    const page = await pairedPage('Signs out offline');
    const { token } = (await readStoredPairing(page))!;
    await runtime.stop();
    await waitUntil(
      async () => (await page.getByText('Connected', { exact: true }).count()) === 0,
      'the app sees the runtime gone',
      20_000,
    );
    // A view never opened on this device has no saved code: it says so, and the app around it stays.
    await page.getByRole('link', { name: 'Accounts' }).click();
    await page.getByRole('alert').filter({ hasText: 'This screen is not saved on this device yet' }).waitFor();
    expect(await page.getByRole('button', { name: 'Reload' }).count()).toBe(1);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out of this device' }).click();
    await page.getByRole('heading', { name: 'Pair this device' }).waitFor();
    expect(await page.getByRole('alert').filter({ hasText: /\S/ }).textContent()).toMatch(
      /will be told when it can be reached/,
    );
    expect(await readStoredPairing(page)).toBeNull();

    runtime = await runtime.restart();
    await waitUntil(async () => !(await tokenAccepted(token)), 'the queued sign-out reaches the runtime', 60_000);
    await page.context().close();
  }, 120_000);
});
