// Shared steps of the preview browser tests: a paired app page, opening a preview through its
// route, and finding the previewed page's frame (app → host page → previewed page).
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { launchChromium } from '../fixtures/browser';
import { connectChromium } from '../fixtures/sharedChromium';
import { makeRuntimeDirs } from '../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { pairThroughLink, startupPairingCode } from './appHarness';
import { routeHash } from '../../lib/client/appRoute';
import { waitUntil } from '../fixtures/waitUntil';

/**
 * The frame of the previewed page whose URL path is `pathname`, on the preview origin (of
 * `previewId` when given: a preview stopped and started again has left its old frame behind).
 */
export async function previewedFrame(
  page: Page,
  pathname: string,
  timeoutMs = 20_000,
  previewId?: string,
): Promise<Frame> {
  let found: Frame | undefined;
  const host = previewId ? new RegExp(`^p-${previewId}\\.`) : /^p-[0-9a-f]{32}\./;
  await waitUntil(
    () => {
      found = page.frames().find((frame) => {
        const url = new URL(frame.url() || 'about:blank');
        return host.test(url.hostname) && url.pathname === pathname;
      });
      return found !== undefined;
    },
    `the preview shows ${pathname}`,
    timeoutMs,
  );
  return found!;
}

/** Goes to `#/preview?dir=…&path=…` in the paired app, without waiting for the preview's frame. */
export async function gotoPreview(
  page: Page,
  runtime: RuntimeProcess,
  projectDirectory: string,
  path: string,
): Promise<void> {
  await page.goto(`${runtime.appOrigin}/${routeHash({ kind: 'preview', projectDirectory, path })}`);
}

/** Opens `#/preview?dir=…&path=…` in the paired app and waits for the preview's frame. */
export async function openPreview(
  page: Page,
  runtime: RuntimeProcess,
  projectDirectory: string,
  path: string,
): Promise<void> {
  await gotoPreview(page, runtime, projectDirectory, path);
  await page.locator('iframe.preview-frame').waitFor();
}

/** The preview id of the pane on screen. */
export async function shownPreviewId(page: Page): Promise<string> {
  const id = await page.locator('iframe.preview-frame').getAttribute('data-preview-id');
  if (!id) throw new Error('no preview on screen');
  return id;
}

export interface PairedPreviewApp {
  project: string;
  runtime: RuntimeProcess;
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

/**
 * A runtime serving one project holding `files` (name → HTML; `prepare` may add more before the
 * runtime starts), and a Chromium page paired with it through the start-up link.
 */
export async function startPairedPreviewApp(
  files: Record<string, string>,
  options: { chromiumArgs?: string[]; prepare?: (project: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<PairedPreviewApp> {
  const dirs = makeRuntimeDirs();
  const project = dirs.projectDirs[0]!;
  for (const [name, html] of Object.entries(files)) fs.writeFileSync(path.join(project, name), html);
  options.prepare?.(project);
  // NOTE: a test that needs switches of its own (a smaller renderer heap) gets a Chromium of its own.
  // Chromium and its page need nothing of the runtime: they open while the runtime starts.
  const opening = (options.chromiumArgs ? launchChromium(options.chromiumArgs) : connectChromium()).then(
    async (browser) => ({ browser, page: await browser.newPage() }),
  );
  // Awaited below; until then a failure to open must not count as an unhandled rejection.
  opening.catch(() => undefined);
  let runtime: RuntimeProcess;
  try {
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: [project], env: options.env });
  } catch (error) {
    await opening.then(
      ({ browser }) => browser.close(),
      () => undefined,
    );
    dirs.remove();
    throw error;
  }
  const { browser, page } = await opening;
  await pairThroughLink(page, runtime.appOrigin, startupPairingCode(runtime));
  const close = async () => {
    await browser.close();
    await runtime.stop();
    dirs.remove();
  };
  return { project, runtime, browser, page, close };
}
