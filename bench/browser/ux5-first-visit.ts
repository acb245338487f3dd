/**
 * UX-5: the first visit of a paired device in Chromium on a slow phone: 4× CPU throttling and
 * DevTools' "Slow 4G" network, from an empty HTTP cache, until the session list is interactive.
 * Ours (split views, precompressed responses) against the same app built with every view in the
 * first screen's bundle (HBCODE_APP_SPLITTING=off) and served without compression, in one run.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { z } from 'zod';
import { REPO_ROOT } from '../../server/runtime/paths';
import { copyRuntimeWithApp, newPairingCode, pairThroughLink, type RuntimeCopy } from '../../tests/e2e/appHarness';
import { launchChromium } from '../../tests/fixtures/browser';
import { makeRuntimeDirs, type RuntimeDirs } from '../../tests/fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../tests/fixtures/runtimeProcess';
import { buildReferenceApp } from '../lib/referenceAppBuild';
import { benchSettings, type Benchmark, type BenchOutcome } from '../lib/report';
import { median, rotateRounds } from '../lib/rounds';

/** Chrome DevTools' "Slow 4G" preset (its throttling presets, with their 0.9 factor). */
const SLOW_4G = {
  offline: false,
  latency: 150 * 3.75,
  downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9,
  uploadThroughput: ((750 * 1000) / 8) * 0.9,
};
const CPU_SLOWDOWN = 4;
/** The session list is interactive: connected, and a project's "New session" button is on screen. */
const INTERACTIVE = '[data-connection="open"]';
const LIST_READY = 'section[aria-label^="Project "] button.primary';

interface Visit {
  ms: number;
  bytes: number;
  requests: number;
}

declare global {
  interface Window {
    __hbcodeInteractiveAt?: number;
  }
}

/**
 * Marks, in the page, the moment the session list can be used (ms since navigation start). A
 * source string: the bench runs through a transform that names functions with a helper the page
 * does not have.
 */
async function watchInteractive(page: Page): Promise<void> {
  const selectors = JSON.stringify([INTERACTIVE, LIST_READY]);
  await page.addInitScript(`(() => {
    const [connected, list] = ${selectors};
    new MutationObserver(() => {
      if (window.__hbcodeInteractiveAt === undefined && document.querySelector(connected) && document.querySelector(list)) window.__hbcodeInteractiveAt = performance.now();
    }).observe(document, { subtree: true, childList: true, attributes: true });
  })();`);
}

/** Bytes on the wire (headers and bodies as received) of every request the page made. */
function countBytes(cdp: CDPSession): { total: () => { bytes: number; requests: number } } {
  let bytes = 0;
  let requests = 0;
  cdp.on('Network.loadingFinished', (event) => {
    bytes += event.encodedDataLength;
    requests += 1;
  });
  return { total: () => ({ bytes, requests }) };
}

async function firstVisit(browser: Browser, runtime: RuntimeProcess): Promise<Visit> {
  // Service workers are blocked: either build's worker would fill its cache during the visit;
  // what each installs is reported apart.
  const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 390, height: 844 } });
  try {
    const page = await context.newPage();
    await pairThroughLink(page, runtime.appOrigin, await newPairingCode(runtime));
    await page.goto('about:blank');
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.clearBrowserCache');
    await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
    await watchInteractive(page);
    const counter = countBytes(cdp);
    await page.goto(`${runtime.appOrigin}/`, { waitUntil: 'commit' });
    await page.waitForFunction(() => window.__hbcodeInteractiveAt !== undefined, undefined, {
      timeout: 180_000,
      polling: 250,
    });
    const ms = await page.evaluate(() => window.__hbcodeInteractiveAt!);
    const { bytes, requests } = counter.total();
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    return { ms, bytes, requests };
  } finally {
    await context.close();
  }
}

const AppBuildReportSchema = z.object({
  shellFiles: z.number(),
  shellBytes: z.number(),
  lazyFiles: z.number(),
  lazyBytes: z.number(),
});

/** What the build's service worker fetches at install (its shell) and what it leaves for later. */
function appBuildReport(appDir: string): z.infer<typeof AppBuildReportSchema> {
  return AppBuildReportSchema.parse(JSON.parse(fs.readFileSync(path.join(appDir, '.build-report.json'), 'utf8')));
}

export const ux5FirstVisit: Benchmark = {
  name: 'ux5-first-visit',
  async run(progress): Promise<BenchOutcome> {
    const { rounds } = benchSettings(1, 3);
    progress('   building the reference app (every view in the first bundle, no compression)…');
    const referenceDir = buildReferenceApp();
    let dirs: RuntimeDirs | undefined;
    let copy: RuntimeCopy | undefined;
    let ours: RuntimeProcess | undefined;
    let reference: RuntimeProcess | undefined;
    let browser: Browser | undefined;
    try {
      dirs = makeRuntimeDirs();
      copy = copyRuntimeWithApp(referenceDir);
      fs.rmSync(path.join(copy.outDir, '.compressed'), { recursive: true, force: true });
      ours = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
      reference = await startRuntimeProcess({ projectDirs: dirs.projectDirs, wrap: copy.wrap });
      browser = await launchChromium();
      const oursRuntime = ours;
      const referenceRuntime = reference;
      const visits = await rotateRounds(
        rounds,
        { ours: () => firstVisit(browser!, oursRuntime), reference: () => firstVisit(browser!, referenceRuntime) },
        progress,
        (v) => `${v.ms.toFixed(0)} ms, ${v.bytes} bytes in ${v.requests} requests`,
      );
      const mib = (b: number) => b / 1024 / 1024;
      const built = appBuildReport(path.join(REPO_ROOT, 'out'));
      return {
        comparisons: [
          {
            rule: 'UX-5',
            label: 'first visit until the session list is interactive (4× CPU, Slow 4G)',
            unit: 'ms',
            better: 'lower',
            oursName: 'split + compressed',
            referenceName: 'one bundle, uncompressed',
            ours: median(visits.ours.map((v) => v.ms)),
            reference: median(visits.reference.map((v) => v.ms)),
            target: 0.5,
          },
          {
            rule: 'UX-5',
            label: 'bytes transferred until then',
            unit: 'MiB',
            better: 'lower',
            oursName: 'split + compressed',
            referenceName: 'one bundle, uncompressed',
            ours: mib(median(visits.ours.map((v) => v.bytes))),
            reference: mib(median(visits.reference.map((v) => v.bytes))),
            target: 0.5,
          },
          {
            rule: 'UX-5',
            label: 'files the service worker fetches at install (uncompressed)',
            unit: 'MiB',
            better: 'lower',
            oursName: 'shell only',
            referenceName: 'every file, as before',
            ours: mib(built.shellBytes),
            reference: mib(built.shellBytes + built.lazyBytes),
            target: null,
          },
        ],
        parameters: { rounds, network: SLOW_4G, cpuSlowdown: CPU_SLOWDOWN, viewport: '390x844' },
        measurements: { ours: visits.ours, reference: visits.reference, build: built },
        notes: [
          'Each visit: a new browser context pairs with the runtime unthrottled, then the HTTP cache is cleared, the throttling set, and the app opened at /; the time is the page\'s performance.now() when the connection is open and a project\'s "New session" button is in the DOM.',
          "Service workers are blocked during the visits so neither build's install traffic competes with the page; the third line gives what each installs. Bytes are Network.loadingFinished encodedDataLength (headers and bodies on the wire); the WebSocket is not counted.",
        ],
      };
    } finally {
      await browser?.close();
      await ours?.stopIfRunning();
      await reference?.stopIfRunning();
      copy?.remove();
      dirs?.remove();
    }
  },
};
