import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectChromium } from '../fixtures/sharedChromium';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { waitUntil } from '../fixtures/waitUntil';
import { buildDigest, shortDigest, type BuildInfo } from '../../lib/protocol/buildDigest';
import { controllerDigest, readBuild, serveChanged, sha256, shellScript, updateAndSettle } from './buildTamper';
import { copyRuntimeWithApp, DESKTOP_CONTEXT, keptScreenshotPath, newPairingCode, pairThroughLink, pairUnderServiceWorker, waitConnected, type RuntimeCopy } from './appHarness';

const fetchText = (page: Page, url: string) => page.evaluate(async (at) => {
  const response = await fetch(at);
  return { status: response.status, text: await response.text() };
}, url);

/** A runtime serving its own copy of the app (safe to change, as a relay would) and a browser. */
interface Setup {
  copy: RuntimeCopy;
  dirs: RuntimeDirs;
  runtime: RuntimeProcess;
  browser: Browser;
}

async function startSetup(): Promise<Setup> {
  const copy = copyRuntimeWithApp();
  const dirs = makeRuntimeDirs();
  const runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs, wrap: copy.wrap });
  return { copy, dirs, runtime, browser: await connectChromium() };
}

async function stopSetup(setup: Setup | undefined): Promise<void> {
  await setup?.browser.close();
  await setup?.runtime.stop();
  setup?.dirs.remove();
  setup?.copy.remove();
}

describe('RLY-5 the installed app takes a new build only when the desktop vouches for it', () => {
  let setup: Setup;
  let copy: RuntimeCopy;
  let runtime: RuntimeProcess;
  let browser: Browser;
  let page: Page;
  let buildA: BuildInfo;
  let script: string;
  let originalScript: Buffer;
  let workerA: string;
  const changedScript = (build: string) => Buffer.concat([originalScript, Buffer.from(`\n;/* build ${build} */\n`)]);
  let digestC: string;

  beforeAll(async () => {
    setup = await startSetup();
    ({ copy, runtime, browser } = setup);
    page = await (await browser.newContext(DESKTOP_CONTEXT)).newPage();
    buildA = readBuild(copy.outDir);
    script = shellScript(copy.outDir);
    originalScript = fs.readFileSync(path.join(copy.outDir, script));
    workerA = fs.readFileSync(path.join(copy.outDir, 'sw.js'), 'utf8');
  });
  afterAll(async () => {
    // The runtime was restarted: the setup stops the one that runs now.
    if (setup) setup.runtime = runtime;
    await stopSetup(setup);
  });

  it('RLY-5 build A installs on first use and its worker says which build it is', async () => {
    await pairUnderServiceWorker(page, runtime);
    expect(await controllerDigest(page)).toBe(buildA.digest);
    expect(await page.locator('[data-build-warning]').count()).toBe(0);
  });

  it('RLY-5 a lazily cached file whose bytes are not the build\'s is neither served nor cached', async () => {
    const lazy = Object.keys(buildA.files).find((file) => file.startsWith('/workers/chunks/'))!;
    const original = fs.readFileSync(path.join(copy.outDir, lazy));
    const cachedBefore = await page.evaluate(async (url) => Boolean(await caches.match(url, { ignoreSearch: true })), lazy);
    fs.writeFileSync(path.join(copy.outDir, lazy), Buffer.concat([original, Buffer.from('\n;/* changed */')]));
    try {
      const served = await fetchText(page, lazy);
      expect(served.text).not.toContain('/* changed */');
      // Cached before (the idle warming may have got it): the build's own bytes; else refused.
      if (cachedBefore) expect(served.status).toBe(200);
      else {
        expect(served.status).toBe(502);
        expect(await page.evaluate(async (url) => Boolean(await caches.match(url, { ignoreSearch: true })), lazy)).toBe(false);
      }
    } finally {
      fs.writeFileSync(path.join(copy.outDir, lazy), original);
    }
    const restored = await fetchText(page, lazy);
    expect(restored.status).toBe(200);
    expect(sha256(restored.text)).toBe(buildA.files[lazy]);
  });

  it('RLY-5 a file the worker never caches (a page\'s RSC payload) is still checked before it is served', async () => {
    const payload = '/index.txt';
    expect(buildA.files[payload]).toBeDefined();
    const original = fs.readFileSync(path.join(copy.outDir, payload));
    fs.writeFileSync(path.join(copy.outDir, payload), Buffer.concat([original, Buffer.from('changed')]));
    try {
      const served = await fetchText(page, payload);
      expect(served.status).toBe(502);
      expect(served.text).not.toContain('changed');
    } finally {
      fs.writeFileSync(path.join(copy.outDir, payload), original);
    }
    const restored = await fetchText(page, payload);
    expect(restored.status).toBe(200);
    expect(sha256(restored.text)).toBe(buildA.files[payload]);
  });

  it('RLY-5 a tampered build B the desktop does not vouch for is refused with a warning; A stays active', async () => {
    const digestB = await serveChanged(copy.outDir, buildA, workerA, script, changedScript('B'));
    expect(digestB).not.toBe(buildA.digest);
    expect(await updateAndSettle(page)).toBe('redundant');

    const warning = page.locator('[data-build-warning="refused"]');
    await warning.waitFor();
    expect(await warning.textContent()).toContain('The relay served an app build your desktop does not vouch for. The installed version keeps working.');
    expect(await warning.textContent()).toContain(shortDigest(digestB));
    expect(await warning.textContent()).toContain(shortDigest(buildA.digest));
    expect(await page.getByText('A new version of HB Code is ready.').count()).toBe(0);
    expect(await controllerDigest(page)).toBe(buildA.digest);
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting ?? null)).toBeNull();
    // The page keeps A's bytes of the changed file.
    expect((await fetchText(page, script)).text).not.toContain('build B');

    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: keptScreenshotPath('vouch', `refused-phone-${colorScheme}`) });
      await page.setViewportSize(DESKTOP_CONTEXT.viewport!);
      await page.screenshot({ path: keptScreenshotPath('vouch', `refused-desktop-${colorScheme}`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('RLY-5 a device installing the app for the first time from that relay is warned once it connects (trust on first use)', async () => {
    const context = await browser.newContext(DESKTOP_CONTEXT);
    try {
      const newcomer = await context.newPage();
      await pairThroughLink(newcomer, runtime.appOrigin, await newPairingCode(runtime));
      const warning = newcomer.locator('[data-build-warning="differs"]');
      await warning.waitFor();
      expect(await warning.textContent()).toContain(shortDigest(buildA.digest));
      expect(await newcomer.evaluate(async () => (await navigator.serviceWorker.ready).active?.state)).toBe('activated');
      await newcomer.screenshot({ path: keptScreenshotPath('vouch', 'first-install-differs-desktop-light') });
    } finally {
      await context.close();
    }
  });

  it('RLY-5 with the runtime stopped, the installed build A still opens offline', async () => {
    await runtime.stop();
    const response = await page.reload();
    expect(response?.fromServiceWorker()).toBe(true);
    await page.getByRole('heading', { name: 'HB Code' }).waitFor();
    expect(await controllerDigest(page)).toBe(buildA.digest);
    expect((await fetchText(page, script)).text).not.toContain('build B');
  });

  it('RLY-5 once the desktop runs C, a C whose file does not match its own list still fails to install (SRI)', async () => {
    // The desktop now runs build C: its list names the script changed another way.
    const filesC = { ...buildA.files, [script]: sha256(changedScript('C')) };
    digestC = await buildDigest(filesC);
    fs.writeFileSync(path.join(copy.outDir, '.build.json'), JSON.stringify({ digest: digestC, files: filesC }));
    // The relay serves C's worker, but other bytes for the script than C's list names.
    await serveChanged(copy.outDir, buildA, workerA, script, changedScript('C'), changedScript('D'));
    runtime = await runtime.restart();
    await waitConnected(page);
    expect(await updateAndSettle(page)).toBe('redundant');
    expect(await controllerDigest(page)).toBe(buildA.digest);
    expect(await page.locator('[data-build-warning]').count()).toBe(0);
  });

  it('RLY-5 build C, vouched by the desktop, is offered as a new version and "Reload" switches to it', async () => {
    fs.writeFileSync(path.join(copy.outDir, script), changedScript('C'));
    const prompt = page.getByText('A new version of HB Code is ready.');
    expect(await updateAndSettle(page)).toBe('installed');
    await prompt.waitFor();
    expect(await page.locator('[data-build-warning]').count()).toBe(0);
    const reloaded = page.waitForEvent('load');
    await page.getByRole('button', { name: 'Reload', exact: true }).click();
    await reloaded;
    await waitConnected(page);
    await waitUntil(async () => (await controllerDigest(page)) === digestC, 'build C controls the page');
    expect((await fetchText(page, script)).text).toContain('build C');
    expect(await page.locator('[data-build-warning]').count()).toBe(0);
  });

  it('RLY-5 a worker rewritten to skip the vouch installs (the web platform lets it), but is warned about and never offered', async () => {
    fs.writeFileSync(path.join(copy.outDir, 'sw.js'), "self.addEventListener('fetch', () => undefined);\n");
    expect(await updateAndSettle(page)).toBe('installed');
    const warning = page.locator('[data-build-warning="unvouched"]');
    await warning.waitFor();
    expect(await warning.textContent()).toContain('A new app build was installed without your desktop vouching for it.');
    expect(await page.getByText('A new version of HB Code is ready.').count()).toBe(0);
    expect(await controllerDigest(page)).toBe(digestC);
    await page.screenshot({ path: keptScreenshotPath('vouch', 'unvouched-desktop-light') });
  });
});

describe('RLY-5 a device whose installed worker predates vouching still updates', () => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await startSetup();
  });
  afterAll(() => stopSetup(setup));

  it('RLY-5 a worker that cannot say which build it is (an older app) is replaced on trust on first use, not kept forever', async () => {
    const workerA = fs.readFileSync(path.join(setup.copy.outDir, 'sw.js'), 'utf8');
    // An app from before vouching: its worker answers no build status, its pages no vouch request.
    fs.writeFileSync(path.join(setup.copy.outDir, 'sw.js'), "self.addEventListener('fetch', () => undefined);\n");
    const page = await (await setup.browser.newContext(DESKTOP_CONTEXT)).newPage();
    await pairUnderServiceWorker(page, setup.runtime);
    fs.writeFileSync(path.join(setup.copy.outDir, 'sw.js'), workerA);
    expect(await updateAndSettle(page)).toBe('installed');
    const waiting = await page.evaluate(
      () =>
        new Promise<unknown>((resolve) => {
          void navigator.serviceWorker.getRegistration().then((registration) => {
            const channel = new MessageChannel();
            channel.port1.onmessage = (event) => resolve(event.data);
            registration!.waiting!.postMessage({ type: 'HBCODE_BUILD_STATUS' }, [channel.port2]);
          });
        }),
    );
    expect(waiting).toEqual({ type: 'HBCODE_BUILD_STATUS_ANSWER', digest: readBuild(setup.copy.outDir).digest, vouched: 'firstInstall' });
  });
});
