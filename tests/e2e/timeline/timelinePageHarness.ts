import path from 'node:path';
import { build, type OutputFile } from 'esbuild';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { REPO_ROOT } from '../../../server/runtime/paths';

export const TIMELINE_PAGE_ORIGIN = 'http://timeline.test';
const BUNDLE_DIR = path.join(REPO_ROOT, '.timeline-page');

let bundled: Promise<Map<string, OutputFile>> | null = null;

/** The fixture page and the highlight worker, bundled once per test file as the app build would (production React). */
function bundle(): Promise<Map<string, OutputFile>> {
  bundled ??= (async () => {
    const common = {
      bundle: true,
      write: false,
      format: 'esm',
      splitting: true,
      target: 'es2022',
      minify: true,
      logLevel: 'warning',
      define: { 'process.env.NODE_ENV': '"production"' },
      jsx: 'automatic',
    } as const;
    const [page, worker] = await Promise.all([
      build({
        ...common,
        entryPoints: { page: path.join(REPO_ROOT, 'tests/e2e/timeline/timelinePage.ts') },
        outdir: path.join(BUNDLE_DIR, 'page'),
        chunkNames: 'chunks/[name]-[hash]',
      }),
      build({
        ...common,
        entryPoints: { 'highlight.worker': path.join(REPO_ROOT, 'workers/highlight.worker.ts') },
        outdir: path.join(BUNDLE_DIR, 'workers'),
        chunkNames: 'chunks/[name]-[hash]',
      }),
    ]);
    const files = new Map<string, OutputFile>();
    for (const file of [...page.outputFiles, ...worker.outputFiles])
      files.set('/' + path.relative(BUNDLE_DIR, file.path).split(path.sep).join('/'), file);
    return files;
  })();
  return bundled;
}

const HTML =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Timeline</title><link rel="stylesheet" href="/page/page.css"></head><body><div id="root"></div><script type="module" src="/page/page.js"></script></body></html>';

/**
 * Opens the fixture timeline page (tests/e2e/timeline/timelinePage.ts) in a new context on an
 * origin of its own; resolves once `shown` (by default the timeline's first row) is in the page.
 */
export async function openTimelinePage(
  browser: Browser,
  options: BrowserContextOptions = {},
  query = '',
  shown = '[data-testid="timeline"] .timeline-item',
): Promise<{ context: BrowserContext; page: Page }> {
  const files = await bundle();
  const context = await browser.newContext(options);
  await context.route(`${TIMELINE_PAGE_ORIGIN}/**`, (route) => {
    const { pathname } = new URL(route.request().url());
    if (pathname === '/') return route.fulfill({ status: 200, contentType: 'text/html', body: HTML });
    const file = files.get(pathname);
    if (!file) return route.fulfill({ status: 404, body: 'not found' });
    return route.fulfill({
      status: 200,
      contentType: pathname.endsWith('.css') ? 'text/css' : 'text/javascript',
      body: Buffer.from(file.contents),
    });
  });
  const page = await context.newPage();
  await page.goto(`${TIMELINE_PAGE_ORIGIN}/${query}`);
  await page.locator(shown).first().waitFor({ state: 'attached', timeout: 30_000 });
  return { context, page };
}
