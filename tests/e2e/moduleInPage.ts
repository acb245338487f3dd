import path from 'node:path';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { REPO_ROOT } from '../../server/runtime/paths';

/**
 * A real module of ours, bundled for the browser and loaded as `globalThis[globalName]` into a
 * blank page on an origin of its own (so it gets an IndexedDB of its own).
 */
export async function loadModuleInBlankPage(browser: Browser, entry: string, globalName: string, origin: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  await context.route(`${origin}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>module test</title>' }));
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await addModuleToPage(page, entry, globalName);
  return { context, page };
}

/**
 * The same bundle added to a page already open, e.g. on a real runtime's origin: a page served
 * by a route counts as public to Chromium, which then refuses it sockets to loopback.
 */
export async function addModuleToPage(page: Page, entry: string, globalName: string): Promise<void> {
  const bundle = await build({
    entryPoints: [path.join(REPO_ROOT, entry)],
    bundle: true,
    write: false,
    format: 'iife',
    globalName,
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
}
