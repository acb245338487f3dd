import fs from 'node:fs';
import path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { REPO_ROOT } from '../server/runtime/paths';
import { launchChromium } from '../tests/fixtures/browser';
import { startRuntimeProcess } from '../tests/fixtures/runtimeProcess';
import { startStaticSiteServer } from './lib/staticSiteServer';
import { benchSettings, type Benchmark, type BenchOutcome } from './lib/report';
import { median, rotateRounds } from './lib/rounds';
import { makeTempDir, removeTempDir } from './lib/tempDirs';

const SCRIPTS = 45;
const STYLES = 24;
const IMAGES = 30;
/** The HTML page plus its scripts, styles and images. */
const RESOURCES = 1 + SCRIPTS + STYLES + IMAGES;
const DEFAULT_ROUNDS = 15;

/** A site of 100 resources (PERF-7): every one is needed before the page's load event. */
function writeSite(dir: string): void {
  const icon = fs.readFileSync(path.join(REPO_ROOT, 'public/icons/icon-192.png'));
  const filler = (i: number) => `/* ${'resource '.repeat(300)} ${i} */`;
  const head: string[] = [];
  const body: string[] = [];
  for (let i = 0; i < STYLES; i++) {
    fs.mkdirSync(path.join(dir, 'css'), { recursive: true });
    fs.writeFileSync(path.join(dir, `css/s${i}.css`), `.c${i} { color: rgb(${i}, 0, 0); }\n${filler(i)}\n`);
    head.push(`<link rel="stylesheet" href="css/s${i}.css">`);
  }
  for (let i = 0; i < SCRIPTS; i++) {
    fs.mkdirSync(path.join(dir, 'js'), { recursive: true });
    fs.writeFileSync(path.join(dir, `js/m${i}.js`), `${filler(i)}\nwindow.__loaded = (window.__loaded || 0) + 1;\n`);
    body.push(`<script src="js/m${i}.js"></script>`);
  }
  for (let i = 0; i < IMAGES; i++) {
    fs.mkdirSync(path.join(dir, 'img'), { recursive: true });
    fs.writeFileSync(path.join(dir, `img/i${i}.png`), icon);
    body.push(`<img src="img/i${i}.png" width="24" height="24" alt="">`);
  }
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html><head><meta charset="utf-8"><title>site</title>${head.join('')}</head><body>${body.join('\n')}</body></html>`,
  );
}

// NOTE: page code is given as strings: this file is type-checked in the Node realm, without the DOM.
const NAVIGATION = "performance.getEntriesByType('navigation')[0]";

/** Load time of the page now in `frame`: navigation start to the end of its load event. */
async function loadTime(frame: Frame): Promise<number> {
  return Number(await frame.evaluate(`${NAVIGATION}.loadEventEnd - ${NAVIGATION}.startTime`));
}

/** Reloads the page in `frame` and waits until its new document has finished loading. */
async function reloadAndTime(frame: Frame): Promise<number> {
  await frame.evaluate('window.__stale = true; location.reload()');
  await frame.waitForFunction(`!window.__stale && ${NAVIGATION} && ${NAVIGATION}.loadEventEnd > 0`, null, {
    timeout: 60_000,
  });
  return loadTime(frame);
}

async function previewedFrame(page: Page): Promise<Frame> {
  for (;;) {
    const frame = page
      .frames()
      .find((f) => /^http:\/\/p-[0-9a-f]{32}\./.test(f.url()) && f.url().endsWith('/index.html'));
    if (frame) return frame;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const perf7PreviewLoad: Benchmark = {
  name: 'perf7-preview-load',
  async run(progress): Promise<BenchOutcome> {
    const { rounds, overridden } = benchSettings(1, DEFAULT_ROUNDS);
    const site = makeTempDir('hbcode-bench-site-');
    const siteRoot = fs.realpathSync(site);
    writeSite(siteRoot);
    const reference = await startStaticSiteServer(siteRoot);
    const runtime = await startRuntimeProcess({ projectDirs: [siteRoot] });
    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      const client = await runtime.connect();
      const { code } = await client.call('pair.create');
      client.close();
      await page.goto(`${runtime.appOrigin}/pair#code=${encodeURIComponent(code)}`);
      await page.getByRole('button', { name: 'Pair', exact: true }).click();
      await page.getByText('Connected', { exact: true }).waitFor();
      await page.goto(`${runtime.appOrigin}/#/preview?dir=${encodeURIComponent(siteRoot)}&path=index.html`);
      const preview = await previewedFrame(page);
      await preview.waitForFunction(`window.__loaded === ${SCRIPTS}`, null, { timeout: 60_000 });
      const firstOpenMs = await loadTime(preview);

      const referencePage = await context.newPage();
      await referencePage.goto(`http://127.0.0.1:${reference.port}/index.html`, { waitUntil: 'load' });
      const results = await rotateRounds(
        rounds,
        { preview: () => reloadAndTime(preview), reference: () => reloadAndTime(referencePage.mainFrame()) },
        progress,
        (ms) => `${ms.toFixed(1)} ms`,
      );
      const ours = median(results.preview);
      const theirs = median(results.reference);
      return {
        comparisons: [
          {
            rule: 'PERF-7',
            label: `a ${RESOURCES}-resource site loads (median of ${rounds} reloads)`,
            unit: 'ms',
            better: 'lower',
            oursName: 'preview (worker → app → runtime, verified chunks)',
            referenceName: 'plain static HTTP server',
            ours,
            reference: theirs,
            target: 2,
          },
        ],
        parameters: { resources: RESOURCES, scripts: SCRIPTS, styles: STYLES, images: IMAGES, rounds, overridden },
        measurements: { previewMs: results.preview, referenceMs: results.reference, previewFirstOpenMs: firstOpenMs },
        notes: [
          'Both sides answer with Cache-Control: no-store and load in the same Chromium; times are navigation start to the end of the load event.',
          'The preview is reloaded inside its host page (the worker is already running); its first open, which registers the worker, is recorded as previewFirstOpenMs.',
        ],
      };
    } finally {
      await browser.close();
      await runtime.stop();
      await reference.close();
      removeTempDir(site);
    }
  },
};
