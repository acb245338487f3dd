import path from 'node:path';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from '../../server/runtime/paths';

/**
 * Bundles a page-side benchmark module (bench/browser/*.page.ts, type-checked in the DOM realm)
 * and runs it in the page; it publishes its functions on globalThis for `page.evaluate`. The
 * page's context must bypass CSP, since the bundle arrives as an inline script.
 */
export async function injectPageModule(page: Page, file: string): Promise<void> {
  const bundled = await build({
    entryPoints: [path.join(REPO_ROOT, 'bench', 'browser', file)],
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2022',
    minify: true,
    logLevel: 'warning',
  });
  await page.addScriptTag({ content: bundled.outputFiles[0]!.text });
}
