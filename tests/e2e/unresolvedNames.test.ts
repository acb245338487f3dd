import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../fixtures/browser';
import { writeSite } from '../fixtures/previewSite';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { connectChromium } from '../fixtures/sharedChromium';
import { waitUntil } from '../fixtures/waitUntil';
import { routeHash } from '../../lib/client/appRoute';
import {
  createShellSession,
  keepLightAndDark,
  pairThroughLink,
  PHONE_CONTEXT,
  sendCommand,
  startupPairingCode,
  waitCommandFinished,
} from './appHarness';

/** The pairing link exactly as start-up printed it. */
function printedPairingLink(runtime: RuntimeProcess): string {
  const link = /Pair a device \(code [0-9A-Z-]+, valid once for \d+ minutes\): (\S+)/.exec(runtime.output())?.[1];
  if (!link) throw new Error(`no pairing link in the runtime's output:\n${runtime.output()}`);
  return link;
}

/** Pairs through the link start-up printed (`http://localhost:PORT/pair#code=…`). */
async function pairFromPrintedLink(page: Page, runtime: RuntimeProcess): Promise<void> {
  const link = new URL(printedPairingLink(runtime));
  expect(link.origin).toBe(`http://localhost:${runtime.port}`);
  await pairThroughLink(page, link.origin, startupPairingCode(runtime));
}

async function previewFrameOn(page: Page, origin: string, pathname: string): Promise<Frame> {
  let found: Frame | undefined;
  await waitUntil(
    () => {
      found = page.frames().find((frame) => {
        const url = new URL(frame.url() || 'about:blank');
        return url.origin === origin && url.pathname.endsWith(pathname);
      });
      return found !== undefined;
    },
    `the preview shows ${pathname} on ${origin}`,
    20_000,
  );
  return found!;
}

describe('ORG-5 the printed address in a browser that cannot resolve *.localhost (as Safari)', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    writeSite(dirs.projectDirs[0]!);
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    // NOTE: Chromium resolves *.localhost itself; this rule makes every such name fail as in Safari.
    browser = await launchChromium(['--host-resolver-rules=MAP *.localhost ~NOTFOUND']);
    context = await browser.newContext(PHONE_CONTEXT);
    page = await context.newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  it('ORG-5 the browser really cannot open the app name', async () => {
    const probe = await context.newPage();
    const failed = await probe.goto(runtime.appOrigin).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failed).toMatch(/ERR_NAME_NOT_RESOLVED/);
    await probe.close();
  });

  it('ORG-5 the printed pairing link pairs on http://127.0.0.1:PORT, a command runs, and a multi-file preview renders on a second 127.0.0.1 port', async () => {
    const fallback = `http://127.0.0.1:${runtime.port}`;
    await pairFromPrintedLink(page, runtime);
    expect(new URL(page.url()).origin).toBe(fallback);

    await createShellSession(page);
    await sendCommand(page, 'echo fallback-$((6*7))');
    expect(await waitCommandFinished(page, 'echo fallback-$((6*7))')).toContain('exit 0');
    await page.getByText('fallback-42').first().waitFor();

    await page.goto(
      `${fallback}/${routeHash({ kind: 'preview', projectDirectory: dirs.projectDirs[0]!, path: 'index.html' })}`,
    );
    await page.locator('iframe.preview-frame').waitFor();
    await page.getByRole('note').filter({ hasText: 'Previews share one origin here' }).waitFor();
    const previewSrc = await page.locator('iframe.preview-frame').getAttribute('src');
    const previewOrigin = new URL(previewSrc!).origin;
    expect(previewOrigin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(previewOrigin).not.toBe(fallback);
    const frame = await previewFrameOn(page, previewOrigin, '/index.html');
    // The site's script reads its data file and the stylesheet through the preview's worker.
    await frame.locator('#status', { hasText: 'ready 42 sales' }).waitFor({ timeout: 20_000 });
    // Isolated from the app: the preview's script reaches none of the app origin's storage.
    const reach = await frame.evaluate(async (app) => {
      const opened = await fetch(`${app}/healthz`).then(
        () => 'read',
        () => 'refused',
      );
      return { opened, sameOrigin: location.origin === app };
    }, fallback);
    expect(reach).toEqual({ opened: 'refused', sameOrigin: false });
    await keepLightAndDark(page, 'unresolved-names', 'preview-phone');
  });
});

describe('ORG-5 the printed address in a browser that resolves *.localhost', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let browser: Browser;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    browser = await connectChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  it('ORG-5 the printed pairing link goes on to hbcode.localhost with its code and pairs there', async () => {
    const page = await (await browser.newContext()).newPage();
    await pairFromPrintedLink(page, runtime);
    expect(new URL(page.url()).origin).toBe(runtime.appOrigin);
  });
});
