import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../tests/fixtures/browser';
import { startRuntimeProcess, TEST_TOKEN, type RuntimeProcess } from '../../tests/fixtures/runtimeProcess';
import { injectPageModule } from './pageBundle';

export interface BrowserRuntime {
  runtime: RuntimeProcess;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  token: string;
  close(): Promise<void>;
}

/**
 * The real runtime serving `projectDir`, and Chromium on its app origin with a page-side
 * benchmark module loaded (bench/browser/). The app's token is the scripts' token.
 */
export async function startBrowserRuntime(
  projectDir: string,
  pageModule: string,
  options: { dataDir?: string } = {},
): Promise<BrowserRuntime> {
  const runtime = await startRuntimeProcess({
    projectDirs: [projectDir],
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  const browser = await launchChromium();
  const context = await browser.newContext({ bypassCSP: true });
  const page = await context.newPage();
  await page.goto(`${runtime.appOrigin}/pair`);
  await injectPageModule(page, pageModule);
  return {
    runtime,
    browser,
    context,
    page,
    token: TEST_TOKEN,
    async close() {
      await browser.close();
      await runtime.stop();
    },
  };
}
