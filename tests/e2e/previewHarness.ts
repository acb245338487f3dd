// Shared steps of the preview browser tests: a paired app page, opening a preview through its
// route, and finding the previewed page's frame (app → host page → previewed page).
import type { Frame, Page } from 'playwright-core';
import type { RuntimeProcess } from '../fixtures/runtimeProcess';
import { routeHash } from '../../lib/client/appRoute';
import { waitUntil } from '../fixtures/waitUntil';

/**
 * The frame of the previewed page whose URL path is `pathname`, on the preview origin (of
 * `previewId` when given: a preview stopped and started again has left its old frame behind).
 */
export async function previewedFrame(page: Page, pathname: string, timeoutMs = 20_000, previewId?: string): Promise<Frame> {
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

/** Opens `#/preview?dir=…&path=…` in the paired app. */
export async function openPreview(page: Page, runtime: RuntimeProcess, projectDirectory: string, path: string): Promise<void> {
  await page.goto(`${runtime.appOrigin}/${routeHash({ kind: 'preview', projectDirectory, path })}`);
  await page.locator('iframe.preview-frame').waitFor();
}

/** The preview id of the pane on screen. */
export async function shownPreviewId(page: Page): Promise<string> {
  const id = await page.locator('iframe.preview-frame').getAttribute('data-preview-id');
  if (!id) throw new Error('no preview on screen');
  return id;
}
