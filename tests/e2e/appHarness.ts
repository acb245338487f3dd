// Shared steps of the app's browser tests: pairing, reading what the page stored, sessions and
// commands through the UI, and a private copy of the runtime for tests that change served files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContextOptions, Locator, Page } from 'playwright-core';
import type { RuntimeProcess } from '../fixtures/runtimeProcess';
import { decodePixels } from '../fixtures/qrDecode';
import { waitUntil } from '../fixtures/waitUntil';
import { REPO_ROOT } from '../../server/runtime/paths';
import { BUNDLE_FOLDER } from '../../scripts/runtime-programs.mjs';

const STARTUP_CODE = /Pair a device \(code ([0-9A-Z]{5}-[0-9A-Z]{5})/;

/** The single-use code the runtime printed at start-up (RPC-5). */
export function startupPairingCode(runtime: RuntimeProcess): string {
  const match = STARTUP_CODE.exec(runtime.output());
  if (!match) throw new Error(`no pairing code in the runtime's output:\n${runtime.output()}`);
  return match[1]!;
}

/** A fresh pairing code, asked for over the protocol with the scripts' token. */
export async function newPairingCode(runtime: RuntimeProcess): Promise<string> {
  const client = await runtime.connect();
  try {
    return (await client.call('pair.create')).code;
  } finally {
    client.close();
  }
}

export async function waitConnected(page: Page): Promise<void> {
  await page.getByText('Connected', { exact: true }).waitFor();
}

/** Opens the printed pairing link, accepts it with "Pair" and waits for the live connection. */
export async function pairThroughLink(page: Page, appOrigin: string, code: string): Promise<void> {
  await page.goto(`${appOrigin}/pair#code=${encodeURIComponent(code)}`);
  const input = page.getByLabel('Pairing code');
  await waitUntil(async () => (await input.inputValue()) === code, 'the pairing link fills in its code');
  await page.getByRole('button', { name: 'Pair', exact: true }).click();
  await waitConnected(page);
}

/**
 * Pairs with the runtime's start-up code, then reloads once so the service worker controls the
 * page (it never claims a page by itself): from then on the app also loads with the runtime stopped.
 */
export async function pairUnderServiceWorker(page: Page, runtime: RuntimeProcess): Promise<void> {
  await pairThroughLink(page, runtime.appOrigin, startupPairingCode(runtime));
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await waitConnected(page);
}

export interface StoredPairing {
  token: string;
  deviceId: string;
  deviceName: string;
}

/**
 * This device's pairing as the app stored it in IndexedDB, or null. Never creates the database:
 * opening a missing one would make an empty version 1 and the app would skip its upgrade.
 */
export function readStoredPairing(page: Page): Promise<StoredPairing | null> {
  return page.evaluate(async () => {
    const databases = await indexedDB.databases();
    if (!databases.some((d) => d.name === 'hbcode')) return null;
    return new Promise<StoredPairing | null>((resolve, reject) => {
      const open = indexedDB.open('hbcode');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        if (!db.objectStoreNames.contains('settings')) {
          db.close();
          resolve(null);
          return;
        }
        const get = db.transaction('settings').objectStore('settings').get('device');
        get.onerror = () => reject(get.error);
        get.onsuccess = () => {
          db.close();
          resolve((get.result as StoredPairing | undefined) ?? null);
        };
      };
    });
  });
}

/** "New session" with the default shell agent; resolves once its composer is on screen. */
export async function createShellSession(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'New session' }).first().click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
}

/**
 * Types a command into the composer and sends it: Enter on a desktop; on a touch screen, where
 * return adds a line (UX-3), the composer's Send (or Steer) button.
 */
export async function sendCommand(page: Page, command: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(command);
  if (await page.evaluate(() => matchMedia('(pointer: coarse)').matches))
    await page.locator('form.composer button[type="submit"]').click();
  else await box.press('Enter');
}

/** The command row whose command line is exactly `command`. */
export function commandRow(page: Page, command: string) {
  return page.locator('[data-row="command"]').filter({ hasText: `$ ${command}` });
}

/** Waits (30 s unless told) for a command row to finish and returns the text of its status ("exit 0", …). */
export async function waitCommandFinished(page: Page, command: string, timeoutMs = 30_000): Promise<string> {
  const status = commandRow(page, command).locator('[data-status]');
  await status.waitFor();
  await waitUntil(
    async () => (await status.getAttribute('data-status')) !== 'running',
    `"${command}" finishes`,
    timeoutMs,
  );
  return (await status.textContent()) ?? '';
}

/**
 * Scrolls a row of a virtualized list into view. Such a list may re-mount the row while it scrolls
 * (a resize remeasures it), so a row detached mid-scroll is looked up again until `timeoutMs`.
 */
export async function scrollRowIntoView(row: Locator, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await row.scrollIntoViewIfNeeded({ timeout: Math.max(1, until - Date.now()) });
      return;
    } catch (error) {
      if (Date.now() >= until || !String(error).includes('not attached')) throw error;
    }
  }
}

/** Whether an element with exactly this text is inside the visible part of its scrolling box. */
export function textInView(page: Page, scroller: string, text: string): Promise<boolean> {
  return page.evaluate(
    ({ scroller, text }) => {
      const box = document.querySelector(scroller);
      if (!box) return false;
      const view = box.getBoundingClientRect();
      return [...box.querySelectorAll('*')].some((el) => {
        if (el.children.length > 0 || el.textContent !== text) return false;
        const r = el.getBoundingClientRect();
        return r.height > 0 && r.top >= view.top - 1 && r.bottom <= view.bottom + 1;
      });
    },
    { scroller, text },
  );
}

/** A phone (390x844, touch) and a desktop browser, the two sizes every screen is checked at. */
export const PHONE_CONTEXT: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
export const DESKTOP_CONTEXT: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };

/** A screenshot kept in docs/screenshots, named `<prefix>-<name>.png` after the feature it shows. */
export function keptScreenshotPath(prefix: string, name: string): string {
  const dir = path.join(REPO_ROOT, 'docs', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${prefix}-${name}.png`);
}

/**
 * Waits until every highlighted file, diff and code block on the page has its tokens in `scheme`'s
 * theme (HL-3): they are highlighted again, in the worker, after the scheme changes.
 */
export async function waitForHighlightTheme(page: Page, scheme: 'light' | 'dark'): Promise<void> {
  await waitUntil(
    () =>
      page.evaluate(
        (scheme) =>
          [...document.querySelectorAll('[data-highlight-theme]')].every(
            (element) => element.getAttribute('data-highlight-theme') === scheme,
          ),
        scheme,
      ),
    `the highlighted text is in the ${scheme} theme`,
  );
}

/** The screen in light and dark, kept as `<prefix>-<name>-light.png` and `-dark.png`; the page is left light. */
export async function keepLightAndDark(page: Page, prefix: string, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await waitForHighlightTheme(page, scheme);
    await page.screenshot({ path: keptScreenshotPath(prefix, `${name}-${scheme}`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Where screenshots go (gitignored); looked at by people, never compared by tests. */
export function screenshotPath(name: string): string {
  const dir = path.join(REPO_ROOT, 'test-results', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}.png`);
}

export interface RuntimeCopy {
  /** The copy's built app, served by a runtime started with `wrap`; safe to change. */
  outDir: string;
  /** For startRuntimeProcess: runs the copy's bundled runtime instead of the checkout's. */
  wrap: (command: string[]) => string[];
  remove(): void;
}

/**
 * The runtime serves `<repo>/out`, found from its own file's place (server/runtime/paths.ts, whose
 * place the bundle keeps relative to dist/). A test that changes a served file works on a copy of
 * the bundle and `out/` (the rest linked), so other test files that share the checkout's `out/`
 * never see the change. `appDir`: another build to serve in its place (the bench's reference build).
 */
export function copyRuntimeWithApp(appDir = path.join(REPO_ROOT, 'out')): RuntimeCopy {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-root-')));
  const bundle = path.join(REPO_ROOT, BUNDLE_FOLDER);
  fs.mkdirSync(path.join(root, BUNDLE_FOLDER));
  for (const name of fs.readdirSync(bundle)) {
    if (name.endsWith('.mjs') || name.endsWith('.map'))
      fs.copyFileSync(path.join(bundle, name), path.join(root, BUNDLE_FOLDER, name));
  }
  fs.cpSync(appDir, path.join(root, 'out'), { recursive: true });
  fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(root, 'package.json'));
  for (const linked of ['lib', 'migrations', 'node_modules', 'scripts', 'server'])
    fs.symlinkSync(path.join(REPO_ROOT, linked), path.join(root, linked), 'dir');
  const checkoutMain = path.join(bundle, 'main.mjs');
  return {
    outDir: path.join(root, 'out'),
    wrap: (command) =>
      command.map((word) => (word === checkoutMain ? path.join(root, BUNDLE_FOLDER, 'main.mjs') : word)),
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * Clicks one of the output viewer's rarer controls (Start, End, Wrap, Copy): in the toolbar on a
 * wide screen, behind the "More output controls" menu on a phone (UX-4).
 */
export async function clickOutputControl(page: Page, name: 'Start' | 'End' | 'Wrap' | 'Copy'): Promise<void> {
  const control = page.getByRole('button', { name, exact: true });
  const more = page.getByRole('button', { name: 'More output controls' });
  // The viewer may still be opening: one of the two shows first.
  await control.or(more).first().waitFor();
  if (!(await control.isVisible())) await more.click();
  await control.click();
}

/** The link in the Devices screen's pairing QR code, decoded from the drawn pixels (DEV-1), or null while none is drawn. */
export async function readQrCanvas(page: Page): Promise<string | null> {
  const image = await page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('canvas.pairing-qr');
    if (!canvas || canvas.width === 0) return null;
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    return { width: data.width, height: data.height, pixels: Array.from(data.data) };
  });
  return image && decodePixels(Uint8ClampedArray.from(image.pixels), image.width, image.height);
}

/** Plays a media element muted until its clock passes `seconds`: frames or samples really decode. */
export async function playsPast(page: Page, selector: string, seconds: number): Promise<void> {
  await page.locator(selector).evaluate((el) => {
    const media = el as HTMLMediaElement;
    media.muted = true;
    void media.play();
  });
  await waitUntil(
    () => page.locator(selector).evaluate((el, past) => (el as HTMLMediaElement).currentTime > past, seconds),
    `${selector} plays past ${seconds} s`,
  );
}
