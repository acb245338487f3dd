import path from 'node:path';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { REPO_ROOT } from '../../server/runtime/paths';

/** For a module that renders React components: the automatic JSX runtime and a production build. */
interface ModuleOptions {
  react?: boolean;
}

/**
 * A real module of ours, bundled for the browser and loaded as `globalThis[globalName]` into a
 * blank page on an origin of its own (so it gets an IndexedDB of its own).
 */
export async function loadModuleInBlankPage(
  browser: Browser,
  entry: string,
  globalName: string,
  origin: string,
  options: ModuleOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  await context.route(`${origin}/**`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>module test</title>' }),
  );
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await addModuleToPage(page, entry, globalName, options);
  return { context, page };
}

/**
 * The same bundle run in a page whose Content-Security-Policy refuses inline scripts (the app's):
 * evaluated through the DevTools protocol, which the page's policy does not govern.
 */
export async function evaluateModuleInPage(page: Page, entry: string, globalName: string): Promise<void> {
  const code = await bundleOf(entry, globalName, {});
  await page.evaluate(`${code}\n;globalThis[${JSON.stringify(globalName)}] = ${globalName}; true`);
}

async function bundleOf(entry: string, globalName: string, options: ModuleOptions): Promise<string> {
  const bundle = await build({
    ...(options.react ? { jsx: 'automatic' as const, define: { 'process.env.NODE_ENV': '"production"' } } : {}),
    entryPoints: [path.join(REPO_ROOT, entry)],
    bundle: true,
    write: false,
    format: 'iife',
    globalName,
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
  return bundle.outputFiles[0]!.text;
}

/**
 * The same bundle added to a page already open, e.g. on a real runtime's origin: a page served
 * by a route counts as public to Chromium, which then refuses it sockets to loopback.
 */
export async function addModuleToPage(
  page: Page,
  entry: string,
  globalName: string,
  options: ModuleOptions = {},
): Promise<void> {
  await page.addScriptTag({ content: await bundleOf(entry, globalName, options) });
}
