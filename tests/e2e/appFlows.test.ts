import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectChromium } from '../fixtures/sharedChromium';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import {
  clickOutputControl,
  commandRow,
  createShellSession,
  pairThroughLink,
  readStoredPairing,
  sendCommand,
  startupPairingCode,
  textInView,
  waitCommandFinished,
  waitConnected,
} from './appHarness';
import { waitUntil } from '../fixtures/waitUntil';

const STREAMING_COMMAND = 'for i in $(seq 1 50); do echo line $i; sleep 0.02; done';
/** "line 1\n" … "line 50\n": 9 lines of 7 bytes and 41 of 8. */
const STREAMING_BYTES = 9 * 7 + 41 * 8;

interface CspViolation {
  directive: string;
  blocked: string;
}
interface RowSample {
  status: string;
  summary: string;
}

declare global {
  interface Window {
    __cspViolations?: CspViolation[];
    __injectedRan?: string[];
    __rowSamples?: RowSample[];
  }
}

/** The app's own error message (Next adds an empty role="alert" route announcer). */
const appAlert = (page: Page) => page.getByRole('alert').filter({ hasText: /\S/ });

/** Sizes as the app prints them (formatBytes): "391 B", "1.5 KiB". */
function parseSize(summary: string): number {
  const match = /(?:^| )(\d+(?:\.\d+)?) (B|KiB|MiB)(?: |$)/.exec(summary);
  if (!match) throw new Error(`no size in "${summary}"`);
  return Number(match[1]) * { B: 1, KiB: 1024, MiB: 1024 * 1024 }[match[2] as 'B' | 'KiB' | 'MiB'];
}

describe('The app in Chromium against the real runtime: pairing, sessions, live commands, output, security', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let browser: Browser;
  /** The paired device of most tests. */
  let context: BrowserContext;
  let page: Page;
  const setCookieHeaders: string[] = [];

  const watchCookies = (target: BrowserContext) =>
    target.on('response', (response) => {
      const header = response.headers()['set-cookie'];
      if (header) setCookieHeaders.push(`${response.url()}: ${header}`);
    });

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    browser = await connectChromium();
    context = await browser.newContext();
    watchCookies(context);
    // Installed before any page script, so it sees every CSP violation from the first byte.
    await context.addInitScript(() => {
      window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (event) => {
        window.__cspViolations!.push({ directive: event.effectiveDirective, blocked: event.blockedURI });
      });
    });
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  it("RPC-2 pairing with a wrong code shows the runtime's refusal and stores nothing", async () => {
    const stranger = await browser.newContext();
    watchCookies(stranger);
    const strangerPage = await stranger.newPage();
    // RLY-1: the relay serves no app, so the pairing page probes for none: no relay socket and no failed request.
    const sockets: string[] = [];
    const failed: string[] = [];
    strangerPage.on('websocket', (socket) => sockets.push(socket.url()));
    strangerPage.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    strangerPage.on('requestfailed', (request) => failed.push(`failed ${request.url()}`));
    await strangerPage.goto(`${runtime.appOrigin}/pair`);
    await strangerPage.getByLabel('Pairing code').fill('ABCDE-FGHJK');
    await strangerPage.getByRole('button', { name: 'Pair', exact: true }).click();
    const alert = appAlert(strangerPage);
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/pairing code is wrong, used or expired/);
    expect(await strangerPage.getByRole('heading', { name: 'Pair this device' }).isVisible()).toBe(true);
    expect(await readStoredPairing(strangerPage)).toBeNull();
    expect(sockets.filter((url) => url.includes('/relay/'))).toEqual([]);
    expect(failed).toEqual([]);
    await stranger.close();
  });

  it('RPC-2 SEC-1 the printed pairing link pairs this browser once: it connects, the code leaves the address bar, and a second browser is refused the same code', async () => {
    const code = startupPairingCode(runtime);
    await pairThroughLink(page, runtime.appOrigin, code);
    expect(page.url()).toBe(`${runtime.appOrigin}/`);
    await page.getByRole('heading', { name: 'HB Code' }).waitFor();

    const admin = await runtime.connect();
    const { devices } = await admin.call('devices.list');
    admin.close();
    expect(devices.map((d) => d.name)).toEqual(['Browser']);

    const second = await browser.newContext();
    const secondPage = await second.newPage();
    await secondPage.goto(`${runtime.appOrigin}/pair#code=${code}`);
    await secondPage.getByRole('button', { name: 'Pair', exact: true }).click();
    await appAlert(secondPage).waitFor();
    expect(await appAlert(secondPage).textContent()).toMatch(/wrong, used or expired/);
    await second.close();
  });

  it('RPC-2 SEC-1 the token is kept in IndexedDB only: not in localStorage, sessionStorage, cookies or the URL', async () => {
    const stored = await readStoredPairing(page);
    expect(stored?.token.length).toBeGreaterThanOrEqual(32);
    const elsewhere = await page.evaluate(() => {
      const values = (storage: Storage) =>
        Array.from({ length: storage.length }, (_, i) => `${storage.key(i)}=${storage.getItem(storage.key(i)!)}`);
      return [...values(localStorage), ...values(sessionStorage), document.cookie, location.href].join('\n');
    });
    expect(elsewhere).not.toContain(stored!.token);
    expect(await context.cookies()).toEqual([]);
  });

  it("SEC-3 the app page's CSP runs its own hashed scripts but blocks injected inline scripts and inline handlers", async () => {
    const response = await page.reload();
    const csp = response?.headers()['content-security-policy'] ?? '';
    const scriptSrc =
      csp
        .split(';')
        .map((d) => d.trim())
        .find((d) => d.startsWith('script-src ')) ?? '';
    expect(scriptSrc).toMatch(/'sha256-[A-Za-z0-9+/]+=*'/);
    expect(scriptSrc).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    // The page's own inline bootstrap scripts ran (the app rendered) without a single violation.
    await page.getByRole('heading', { name: 'HB Code' }).waitFor();
    expect(await page.evaluate(() => window.__cspViolations)).toEqual([]);

    await page.evaluate(async () => {
      window.__injectedRan = [];
      const script = document.createElement('script');
      script.textContent = 'window.__injectedRan.push("inline script")';
      document.body.append(script);
      const image = document.createElement('img');
      image.setAttribute('onerror', 'window.__injectedRan.push("inline handler")');
      image.src = 'data:image/png;base64,broken';
      document.body.append(image);
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    expect(await page.evaluate(() => window.__injectedRan)).toEqual([]);
    const violations = (await page.evaluate(() => window.__cspViolations)) ?? [];
    expect(violations.map((v) => `${v.directive} ${v.blocked}`).sort()).toEqual([
      'script-src-attr inline',
      'script-src-elem inline',
    ]);
  });

  it('SES-3 SES-4 a shell command streams into the timeline: its row goes from running to "exit 0" while its size grows', async () => {
    await createShellSession(page);
    // Records every state the command row is drawn in, straight from the DOM.
    await page.evaluate(() => {
      window.__rowSamples = [];
      const sample = () => {
        const status = document.querySelector('[data-row="command"] [data-status]');
        if (!status) return;
        const parts = [...(status.parentElement?.children ?? [])].map((part) => part.textContent ?? '');
        const next = { status: status.textContent ?? '', summary: parts.join(' | ') };
        const last = window.__rowSamples!.at(-1);
        if (!last || last.status !== next.status || last.summary !== next.summary) window.__rowSamples!.push(next);
      };
      new MutationObserver(sample).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await sendCommand(page, STREAMING_COMMAND);
    expect(await waitCommandFinished(page, STREAMING_COMMAND)).toBe('exit 0');
    // The composer is ready for the next command.
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('');

    const samples = (await page.evaluate(() => window.__rowSamples)) ?? [];
    const running = samples.filter((s) => s.status === 'running').map((s) => parseSize(s.summary));
    const finished = samples.filter((s) => s.status !== 'running');
    expect(running.length, JSON.stringify(samples)).toBeGreaterThan(0);
    // Live updates (timeline.row), not one jump at the end: several sizes between 0 and the total.
    expect(
      new Set(running.filter((n) => n > 0 && n < STREAMING_BYTES)).size,
      JSON.stringify(samples),
    ).toBeGreaterThanOrEqual(3);
    expect(running).toEqual([...running].sort((a, b) => a - b));
    expect(samples.findIndex((s) => s.status !== 'running')).toBeGreaterThan(
      samples.findLastIndex((s) => s.status === 'running'),
    );
    expect(finished.at(-1)?.status).toBe('exit 0');
    expect(parseSize(finished.at(-1)!.summary)).toBe(STREAMING_BYTES);
    // The message that ran it is in the timeline too.
    expect(await page.locator('[data-row="message"]').filter({ hasText: STREAMING_COMMAND }).count()).toBe(1);
  });

  it('OUT-5 UX-1 opening the finished command shows its end, "line 50"; "Start" brings "line 1" into view', async () => {
    // 50 lines of 20 px do not fit in a phone's height: one end is out of view.
    await page.setViewportSize({ width: 390, height: 700 });
    try {
      await commandRow(page, STREAMING_COMMAND).click();
      await waitUntil(
        () => textInView(page, '[data-testid="output"]', 'line 50'),
        '"line 50" is in view: the viewer opens at the end',
        10_000,
      );
      expect(await textInView(page, '[data-testid="output"]', 'line 1')).toBe(false);
      await clickOutputControl(page, 'Start');
      await waitUntil(
        () => textInView(page, '[data-testid="output"]', 'line 1'),
        '"line 1" scrolls into view after "Start"',
        5000,
      );
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
    await page.getByRole('button', { name: 'Back to timeline' }).click();
    await commandRow(page, STREAMING_COMMAND).waitFor();
  });

  it('SES-1 deleting a session asks first: "Cancel" keeps it, "OK" removes it here and on the computer', async () => {
    // The list's address, reloaded, opens the session list whatever screen the last test left (a
    // reload alone keeps that screen, UX-1). The list this device saved shows before the connection
    // opens, and Delete needs the connection: wait for it.
    await page.evaluate(() => {
      location.hash = '#/';
    });
    await page.reload();
    await waitConnected(page);
    const deleteButton = page.getByRole('button', { name: /^Delete / });
    await deleteButton.waitFor();
    expect(await deleteButton.count()).toBe(1);

    const messages: string[] = [];
    page.once('dialog', (dialog) => {
      messages.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await deleteButton.click();
    await waitUntil(() => messages.length === 1, 'the confirmation dialog opens');
    // The session is listed under its first message (UX-8); the confirmation names it so.
    const listedTitle = await page.locator('li[data-session-id] [data-session-title]').first().textContent();
    expect(messages[0]).toContain(`confirm: Delete "${listedTitle}"?`);
    await page.waitForTimeout(300);
    expect(await deleteButton.count()).toBe(1);

    page.once('dialog', (dialog) => void dialog.accept());
    await deleteButton.click();
    await waitUntil(async () => (await deleteButton.count()) === 0, 'the session leaves the list');
    const admin = await runtime.connect();
    const { sessions } = await admin.call('sessions.list');
    admin.close();
    expect(sessions).toEqual([]);
  });

  it('RPC-2 "Sign out" forgets the token and returns to the pair screen, also after a reload', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out of this device' }).click();
    await page.getByRole('heading', { name: 'Pair this device' }).waitFor();
    expect(await readStoredPairing(page)).toBeNull();
    await page.reload();
    await page.getByRole('heading', { name: 'Pair this device' }).waitFor();
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
  });

  it('RPC-2 no cookie was set at any point of these flows', async () => {
    expect(setCookieHeaders).toEqual([]);
    expect(await context.cookies()).toEqual([]);
  });
});
