// The app's core flows at phone size in an engine other than Chromium (tests/fixtures/engines.ts):
// one browser and one runtime per file, the flows in order on one paired page, as a phone would
// use it. Each engine's test file calls `describeEngineFlows` once.
import fs from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineMissing, launchEngine, waitInPage, type EngineName, type EnginePage } from '../fixtures/engines';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { httpGet, startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { PICTURE_SIZE, picturedPageRoutes } from '../fixtures/picturedPage';
import { writeSite } from '../fixtures/previewSite';
import { startTestWebServer, type TestWebServer } from '../fixtures/testWebServer';
import { routeHash } from '../../lib/client/appRoute';
import { waitUntil } from '../fixtures/waitUntil';
import { keptScreenshotPath, startupPairingCode } from '../e2e/appHarness';
import { decodePixels } from '../fixtures/qrDecode';

/** What an element is found by: a CSS selector and, optionally, its exact text or aria-label. */
interface Target {
  css: string;
  name?: string;
}

let targets = 0;

/**
 * Marks the first visible element matching `target` so the driver can click or type into it by a
 * selector of its own; null until there is one.
 */
async function locate(page: EnginePage, target: Target): Promise<string | null> {
  const id = `t${++targets}`;
  const found = await page.evaluate(
    ({ css, name, id }) => {
      const element = [...document.querySelectorAll<HTMLElement>(css)].find((el) => {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) return false;
        return name === undefined || el.getAttribute('aria-label') === name || el.textContent?.trim() === name;
      });
      element?.setAttribute('data-engine-target', id);
      return element !== undefined;
    },
    { ...target, id },
  );
  return found ? `[data-engine-target="${id}"]` : null;
}

/** Waits for the element and clicks it with the driver's pointer. */
async function clickOn(page: EnginePage, target: Target): Promise<void> {
  let selector: string | null = null;
  await waitInPageFor(page, async () => (selector = await locate(page, target)), `${target.name ?? target.css} shows`);
  await page.click(selector!);
}

async function typeInto(page: EnginePage, target: Target, text: string): Promise<void> {
  let selector: string | null = null;
  await waitInPageFor(page, async () => (selector = await locate(page, target)), `${target.name ?? target.css} shows`);
  await page.type(selector!, text);
}

async function waitInPageFor(
  page: EnginePage,
  check: () => Promise<unknown>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  await waitUntil(check, `${what} (${page.engine})`, { timeoutMs, retryErrors: true });
}

/** Whether some element's own text is exactly `text` and it is on screen. */
const textShown = (page: EnginePage, text: string, within = 'body') =>
  page.evaluate(
    ({ text, within }) => {
      const box = document.querySelector(within);
      if (!box) return false;
      const view = box === document.body ? { top: 0, bottom: innerHeight } : box.getBoundingClientRect();
      return [...box.querySelectorAll('*')].some((el) => {
        if (el.children.length > 0 || el.textContent?.trim() !== text) return false;
        const r = el.getBoundingClientRect();
        return r.height > 0 && r.top >= view.top - 1 && r.bottom <= view.bottom + 1;
      });
    },
    { text, within },
  );

/** A TypeScript file whose keyword, comment and plain text the highlighter colours differently. */
const TS_SOURCE = [
  '// a comment',
  'export interface Point { x: number; y: number }',
  'export const origin: Point = { x: 0, y: 0 };',
  '',
].join('\n');
const MARKDOWN = [
  '# Release notes',
  '',
  'Some **bold** text.',
  '',
  '```ts',
  'const answer: number = 42;',
  '```',
  '',
].join('\n');
const PREVIEW_FRAME = 'iframe.preview-frame';
/** How long a first highlight may take (a fresh worker per reload: WebAssembly compiled, grammar loaded). */
const HIGHLIGHT_WAIT_MS = 15_000;

/** The multi-file site's page as the preview shows it, read in its host page (same origin as the page). */
interface PreviewedSite {
  hostOrigin: string;
  origin: string;
  path: string;
  controlled: boolean;
  status: string | null;
  titleColour: string | null;
  logoWidth: number;
  second: boolean;
}

function previewedSite(page: EnginePage): Promise<PreviewedSite | null> {
  return page.evaluateInFrame(
    PREVIEW_FRAME,
    () => {
      const inner = document.querySelector('iframe');
      const view = inner?.contentWindow;
      const doc = inner?.contentDocument;
      if (!view || !doc) return null;
      const title = doc.getElementById('title');
      return {
        hostOrigin: location.origin,
        origin: view.location.origin,
        path: view.location.pathname,
        controlled: view.navigator.serviceWorker.controller !== null,
        status: doc.getElementById('status')?.textContent ?? null,
        titleColour: title ? view.getComputedStyle(title).color : null,
        logoWidth: doc.querySelector<HTMLImageElement>('#logo')?.naturalWidth ?? 0,
        second: doc.getElementById('second') !== null,
      };
    },
    null,
  );
}

const OUTPUT = '[data-testid="output"]';

/** The output of `seq`: 14 bytes a line, about 20 MiB in all. */
const BIG_LINES = 1_500_000;
const rowText = (n: number) => `row ${String(n).padStart(9, '0')}`;
const BIG_COMMAND = `seq -f 'row %09.0f' 1 ${BIG_LINES}`;

async function sendCommand(page: EnginePage, command: string): Promise<void> {
  await typeInto(page, { css: 'textarea[aria-label="Message"], [aria-label="Message"]' }, command);
  await clickOn(page, { css: 'form.composer button[type="submit"]' });
}

async function commandStatus(page: EnginePage, command: string): Promise<string | null> {
  return page.evaluate((command) => {
    const row = [...document.querySelectorAll('[data-row="command"]')].find((r) =>
      r.textContent?.includes(`$ ${command}`),
    );
    const status = row?.querySelector('[data-status]');
    return status && status.getAttribute('data-status') !== 'running' ? (status.textContent ?? '') : null;
  }, command);
}

async function openOutputOf(page: EnginePage, command: string): Promise<void> {
  const id = `out${++targets}`;
  await waitInPageFor(
    page,
    () =>
      page.evaluate(
        ({ command, id }) => {
          const row = [...document.querySelectorAll<HTMLElement>('[data-row="command"]')].find((r) =>
            r.textContent?.includes(`$ ${command}`),
          );
          row?.setAttribute('data-engine-target', id);
          return row !== undefined;
        },
        { command, id },
      ),
    `the row of ${command}`,
  );
  await page.click(`[data-engine-target="${id}"]`);
  await waitInPage(page, (sel) => document.querySelector(sel) !== null, OUTPUT, 'the output viewer opens');
}

/**
 * Where the scrubber's drawn pixels are, in CSS pixels of its box: everything in the box that is
 * not the box's background (the track, its filled part and the thumb). An upright slider draws
 * along nearly its whole height; one drawn lying down draws a short strip.
 */
async function scrubberDrawing(
  page: EnginePage,
): Promise<{ box: { width: number; height: number }; drawnHeight: number; drawnWidth: number }> {
  const rect = await page.evaluate(() => {
    const input = document.querySelector<HTMLInputElement>('input[aria-label="Position in output"]')!;
    const r = input.getBoundingClientRect();
    return { left: r.left, top: r.top, width: r.width, height: r.height };
  }, null);
  const png = PNG.sync.read(await page.screenshot());
  const scale = png.width / (await page.evaluate(() => innerWidth, null));
  const x0 = Math.round(rect.left * scale);
  const y0 = Math.round(rect.top * scale);
  const w = Math.round(rect.width * scale);
  const h = Math.round(rect.height * scale);
  const at = (x: number, y: number) => {
    const i = (y * png.width + x) * 4;
    return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
  };
  const background = at(x0 + 1, y0 + h - 2);
  let top = Infinity;
  let bottom = -Infinity;
  let left = Infinity;
  let right = -Infinity;
  for (let y = y0; y < y0 + h; y++) {
    for (let x = x0; x < x0 + w; x++) {
      const [r, g, b] = at(x, y);
      if (Math.abs(r - background[0]!) + Math.abs(g - background[1]!) + Math.abs(b - background[2]!) < 40) continue;
      top = Math.min(top, y);
      bottom = Math.max(bottom, y);
      left = Math.min(left, x);
      right = Math.max(right, x);
    }
  }
  return {
    box: { width: rect.width, height: rect.height },
    drawnHeight: bottom < top ? 0 : (bottom - top + 1) / scale,
    drawnWidth: right < left ? 0 : (right - left + 1) / scale,
  };
}

export function describeEngineFlows(engine: EngineName): void {
  describe(`the app's core flows in ${engine} at phone size`, () => {
    let dirs: RuntimeDirs;
    let runtime: RuntimeProcess;
    let page: EnginePage;
    let web: TestWebServer;
    let project: string;
    /** The user agents that asked the web server for the reader page's picture. */
    const imageRequests: string[] = [];
    const filesUrl = (filePath: string) =>
      `${runtime.appOrigin}/${routeHash({ kind: 'files', projectDirectory: project, path: filePath })}`;
    /** A screenshot once the page has drawn two more frames (what the DOM says is on screen). */
    const shot = async (name: string) => {
      await page.evaluate(
        () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
        null,
      );
      await page.screenshot(keptScreenshotPath(`engine-${engine}`, name));
    };

    beforeAll(async () => {
      const missing = engineMissing(engine);
      if (missing) throw new Error(missing);
      dirs = makeRuntimeDirs();
      project = dirs.projectDirs[0]!;
      writeSite(project);
      fs.mkdirSync(path.join(project, 'src'));
      fs.writeFileSync(path.join(project, 'src', 'geometry.ts'), TS_SOURCE);
      fs.writeFileSync(path.join(project, 'NOTES.md'), MARKDOWN);
      web = await startTestWebServer(picturedPageRoutes(imageRequests));
      // The reader's page is served on 127.0.0.1: the runtime needs the opt-in for local servers (SEC-5).
      runtime = await startRuntimeProcess({
        dataDir: dirs.dataDir,
        projectDirs: dirs.projectDirs,
        wrap: (command) => [...command, '--allow-private-fetch'],
      });
      page = await launchEngine(engine);
    }, 120_000);

    afterAll(async () => {
      await page?.close();
      await runtime?.stopIfRunning();
      await web?.close();
      dirs?.remove();
    });

    it('RPC-5 PWA-1 pairs through the link, and the first install of the app takes the page over after a reload', async () => {
      const code = startupPairingCode(runtime);
      await page.goto(`${runtime.appOrigin}/pair#code=${encodeURIComponent(code)}`);
      await waitInPage(
        page,
        (code) => document.querySelector<HTMLInputElement>('#pair-code')?.value === code,
        code,
        'the pairing link fills in its code',
      );
      await clickOn(page, { css: 'button[type="submit"]', name: 'Pair' });
      await waitInPageFor(page, () => textShown(page, 'Connected'), 'connected');
      // The first build installs and activates; after a reload it controls the page.
      await waitInPage(
        page,
        async () => (await navigator.serviceWorker.getRegistration())?.active?.state === 'activated',
        null,
        'the app worker is active',
        60_000,
      );
      await page.reload();
      await waitInPageFor(page, () => textShown(page, 'Connected'), 'connected after a reload');
      await waitInPage(page, () => navigator.serviceWorker.controller !== null, null, 'the worker controls the page');
      await shot('paired');
    }, 120_000);

    it('PWA-2 a shell session shows live output of a command', async () => {
      await clickOn(page, { css: 'button', name: 'New session' });
      await waitInPage(
        page,
        () => document.querySelector('[aria-label="Message"]') !== null,
        null,
        'the composer shows',
      );
      await sendCommand(page, 'for i in 1 2 3; do echo tick-$i; sleep 0.3; done');
      await waitInPageFor(
        page,
        () =>
          textShown(page, 'tick-3').then(
            (shown) => shown || page.evaluate(() => document.body.textContent?.includes('tick-3') ?? false),
          ),
        'the command output shows',
      );
      await waitInPageFor(
        page,
        async () => (await commandStatus(page, 'for i in 1 2 3; do echo tick-$i; sleep 0.3; done')) === 'exit 0',
        'the command finishes',
      );
      await shot('session');
    }, 60_000);

    it('PWA-4 with the runtime stopped the app reloads, and a command typed then waits in the outbox and runs once it is back', async () => {
      await runtime.stop();
      await page.reload();
      await waitInPage(
        page,
        () => document.querySelector('[aria-label="Message"]') !== null,
        null,
        'the session reloads with the runtime stopped',
      );
      try {
        await waitInPageFor(
          page,
          () =>
            page.evaluate(
              () => document.querySelector('[data-row="command"]')?.textContent?.includes('$ for i in 1 2 3') ?? false,
              null,
            ),
          'the earlier command shows offline',
        );
        const command = 'echo sent-while-offline';
        await sendCommand(page, command);
        await waitInPageFor(
          page,
          () => page.evaluate((c) => document.body.textContent?.includes(c) ?? false, command),
          'the queued command shows',
        );
        await shot('offline-outbox');
        runtime = await runtime.restart();
        await waitInPageFor(
          page,
          async () => (await commandStatus(page, command)) === 'exit 0',
          'the queued command runs once the runtime is back',
          60_000,
        );
      } finally {
        // The later flows need the runtime, whatever happened here.
        if (!runtime.running()) runtime = await runtime.restart();
      }
    }, 120_000);

    it('PWA-2 a 20 MiB output: Find marks its match every time, End shows the last line, the scrubber stands upright', async () => {
      await sendCommand(page, BIG_COMMAND);
      await waitInPageFor(
        page,
        async () => (await commandStatus(page, BIG_COMMAND)) === 'exit 0',
        'the 20 MiB command finishes',
        120_000,
      );
      await openOutputOf(page, BIG_COMMAND);
      // A finished command opens at its end (UX-1); Start goes to its first line.
      await waitInPageFor(page, () => textShown(page, rowText(BIG_LINES), OUTPUT), 'the last line shows', 60_000);
      await clickOn(page, { css: 'button', name: 'More output controls' });
      await clickOn(page, { css: 'button', name: 'Start' });
      await waitInPageFor(page, () => textShown(page, rowText(1), OUTPUT), 'the first line shows after Start', 60_000);

      // The scrubber is drawn upright beside the lines, along nearly the view's whole height.
      const drawing = await scrubberDrawing(page);
      expect(drawing.box.height).toBeGreaterThan(4 * drawing.box.width);
      expect(drawing.drawnHeight, JSON.stringify(drawing)).toBeGreaterThan(0.8 * drawing.box.height);
      expect(drawing.drawnWidth, JSON.stringify(drawing)).toBeLessThan(drawing.box.width);

      // Targets spread over the output, each found below where the last find left the view (a new
      // query searches down from the top of the view).
      const targetsFound = [
        20_001, 55_555, 345_678, 654_321, 777_777, 987_654, 1_111_111, 1_234_567, 1_400_000, 1_499_990,
      ];
      for (const target of targetsFound) {
        await typeInto(page, { css: 'input[aria-label="Find in output"]' }, rowText(target));
        await page.press('Enter');
        await waitInPageFor(
          page,
          () =>
            page.evaluate(
              ({ sel, text }) => [...document.querySelectorAll(`${sel} mark`)].some((m) => m.textContent === text),
              { sel: OUTPUT, text: rowText(target) },
            ),
          `the match ${rowText(target)} is marked`,
          60_000,
        ).catch(async (error: Error) => {
          const state = await page.evaluate((sel) => {
            const box = document.querySelector<HTMLElement>(sel)!;
            const lines = [...box.querySelectorAll<HTMLElement>('[data-offset]')].map((l) => l.textContent);
            return {
              start: box.dataset.windowStart,
              end: box.dataset.windowEnd,
              scrollTop: box.scrollTop,
              scrollHeight: box.scrollHeight,
              first: lines[0],
              last: lines.at(-1),
              status: [...document.querySelectorAll('[role="status"]')].map((e) => e.textContent),
              query: document.querySelector<HTMLInputElement>('input[aria-label="Find in output"]')?.value,
            };
          }, OUTPUT);
          throw new Error(`${error.message}: ${JSON.stringify(state)}`);
        });
        await waitInPageFor(
          page,
          () => textShown(page, rowText(target), OUTPUT),
          `the match ${rowText(target)} is in view`,
        );
      }
      await shot('find');

      await typeInto(page, { css: 'input[aria-label="Find in output"]' }, '');
      await clickOn(page, { css: 'button', name: 'More output controls' });
      await clickOn(page, { css: 'button', name: 'End' });
      await waitInPageFor(
        page,
        () => textShown(page, rowText(BIG_LINES), OUTPUT),
        'the last line shows after End',
        60_000,
      );
      await shot('output-end');
    }, 300_000);

    it('FILE-4 HL-1 the Files screen browses to a TypeScript file shown highlighted, and renders Markdown with highlighted code', async () => {
      await clickOn(page, { css: 'a[href="#/files"]' });
      await clickOn(page, {
        css: `ul[aria-label="Projects"] a[href="${routeHash({ kind: 'files', projectDirectory: project, path: '' })}"]`,
      });
      await clickOn(page, {
        css: `ul[aria-label="Folder contents"] a[href="${routeHash({ kind: 'files', projectDirectory: project, path: 'src' })}"]`,
      });
      await clickOn(page, {
        css: `ul[aria-label="Folder contents"] a[href="${routeHash({ kind: 'files', projectDirectory: project, path: 'src/geometry.ts' })}"]`,
      });
      await waitInPage(
        page,
        () => document.querySelector('.source-lines[data-highlight="highlighted"]') !== null,
        null,
        'the source is highlighted',
        HIGHLIGHT_WAIT_MS,
      );
      const source = await page.evaluate(() => {
        const lines = document.querySelector('.source-lines[data-highlight="highlighted"]')!;
        const colourOf = (line: number, text: string) => {
          const span = [...lines.querySelectorAll(`[data-line="${line}"] .source-text span`)].find(
            (s) => s.children.length === 0 && s.textContent?.trim() === text,
          );
          return span ? getComputedStyle(span).color : null;
        };
        return {
          keyword: colourOf(2, 'export'),
          comment: colourOf(1, '// a comment'),
          plain: getComputedStyle(lines).color,
          line3: lines.querySelector('[data-line="3"] .source-text')?.textContent,
          tokens3: lines.querySelectorAll('[data-line="3"] .source-text span').length,
        };
      }, null);
      expect(source.keyword, JSON.stringify(source)).not.toBeNull();
      expect(source.comment, JSON.stringify(source)).not.toBeNull();
      expect(source.keyword).not.toBe(source.comment);
      expect(source.keyword).not.toBe(source.plain);
      expect(source.line3).toBe('export const origin: Point = { x: 0, y: 0 };');
      expect(source.tokens3).toBeGreaterThan(5);
      await shot('files-source');

      await page.goto(filesUrl('NOTES.md'));
      await waitInPage(
        page,
        () => document.querySelector('.markdown-view h1')?.textContent === 'Release notes',
        null,
        'the Markdown renders',
      );
      await waitInPage(
        page,
        () => document.querySelectorAll('.markdown-view code[data-highlighted="true"] span[style*="color"]').length > 2,
        null,
        'its fenced code is highlighted',
      );
      expect(await page.evaluate(() => document.querySelector('.markdown-view strong')?.textContent, null)).toBe(
        'bold',
      );
      await shot('files-markdown');
    }, 60_000);

    it('PRV-5 PRV-6 a multi-file site previews on an origin of its own, every file served by its service worker; a link and Back move within it', async () => {
      await page.goto(filesUrl('index.html'));
      await clickOn(page, { css: 'button', name: 'Preview' });
      await waitInPage(page, (sel) => document.querySelector(sel) !== null, PREVIEW_FRAME, 'the preview frame shows');
      let site: PreviewedSite | null = null;
      await waitInPageFor(
        page,
        async () => (site = await previewedSite(page))?.status === 'ready 42 sales' && site.logoWidth === 192,
        'the site renders: module imports, fetched JSON, CSS and image',
      );
      const shown = site!;
      expect(shown.origin).toMatch(/^http:\/\/p-[0-9a-f]{32}\.hbcode\.localhost:\d+$/);
      expect(shown.origin).toBe(shown.hostOrigin);
      expect(shown.origin).not.toBe(runtime.appOrigin);
      expect(shown).toMatchObject({ path: '/index.html', controlled: true, titleColour: 'rgb(1, 2, 3)' });
      // The preview origin's server answers only the host page and the worker script: the site's
      // files on screen came through the worker.
      for (const file of ['/index.html', '/css/style.css', '/js/main.js', '/img/logo.png'])
        expect((await httpGet(runtime.port, file, new URL(shown.origin).host)).status, file).toBe(404);
      await shot('preview');

      // A link in the page opens its file within the preview; the pane's Back returns.
      await page.clickInFrames([PREVIEW_FRAME, 'iframe'], '#local-link');
      await waitInPageFor(page, async () => (await previewedSite(page))?.second === true, 'the second page shows');
      expect((await previewedSite(page))?.path).toBe('/pages/second.html');
      await clickOn(page, { css: 'section.preview button[aria-label="Back"]' });
      await waitInPageFor(
        page,
        async () => (await previewedSite(page))?.status === 'ready 42 sales',
        'Back shows the first page again',
      );
    }, 90_000);

    it('DEV-1 the Devices screen lists this device and shows a single-use pairing code as text and as a QR code that says the same', async () => {
      await clickOn(page, { css: 'nav a, nav button, a, button', name: 'Devices' });
      await waitInPageFor(page, () => textShown(page, 'This device'), 'this device is listed');
      await clickOn(page, { css: 'button', name: 'Show a pairing code' });
      let code = '';
      await waitInPageFor(
        page,
        async () =>
          (code = await page.evaluate(() => document.querySelector('.pairing-text')?.textContent?.trim() ?? '', null))
            .length > 0,
        'a pairing code shows',
      );
      expect(code).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
      let link: string | null = null;
      await waitInPageFor(
        page,
        async () => {
          const image = await page.evaluate(() => {
            const canvas = document.querySelector<HTMLCanvasElement>('canvas.pairing-qr');
            if (!canvas || canvas.width === 0) return null;
            const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
            return { width: data.width, height: data.height, pixels: Array.from(data.data) };
          }, null);
          link = image && decodePixels(Uint8ClampedArray.from(image.pixels), image.width, image.height);
          return link;
        },
        'the QR code is drawn',
      );
      expect(link).toContain(`#code=${encodeURIComponent(code)}`);
      await shot('devices');
    }, 60_000);

    it('MD-1 MD-5 PWA-3 a web page opens in the reader as Markdown, its picture fetched by the desktop, never by the phone, and both it and a file read before open offline', async () => {
      const browserAgent = await page.evaluate(() => navigator.userAgent, null);
      await clickOn(page, { css: 'a[href="#/web"]' });
      await typeInto(page, { css: 'input[aria-label="Web address"]' }, `${web.origin}/pictured`);
      await clickOn(page, { css: 'button[type="submit"]', name: 'Read' });
      await waitInPage(
        page,
        () => document.querySelector('[data-testid="reader"] article h1')?.textContent === 'A pictured page',
        null,
        'the article shows',
      );
      await waitInPage(
        page,
        ({ width }) => {
          const img = document.querySelector<HTMLImageElement>(
            '[data-testid="reader"] article img[alt="Coloured noise"]',
          );
          return img !== null && img.src.startsWith('blob:') && img.complete && img.naturalWidth === width;
        },
        PICTURE_SIZE,
        "the picture is drawn from the desktop's copy",
      );
      expect(imageRequests.length).toBeGreaterThan(0);
      expect(imageRequests.every((agent) => agent.includes('HBCodeReader') && agent !== browserAgent)).toBe(true);
      // SVG is never shown: it says why instead.
      await waitInPage(
        page,
        () =>
          document
            .querySelector('[data-testid="reader"] article [data-image-state="missing"]')
            ?.textContent?.includes('An SVG drawing') ?? false,
        null,
        'the SVG says it is not shown',
      );
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? null, null)).toBeNull();
      await shot('reader');

      // PWA-3: the runtime stops; the app reloads from its worker and shows the saved page with
      // this device's copy of the picture, and the file opened earlier, still highlighted.
      const asked = imageRequests.length;
      await runtime.stop();
      await page.reload();
      await waitInPage(
        page,
        () => document.querySelector('[data-testid="offline-banner"]') !== null,
        null,
        'the app says it is offline',
      );
      await waitInPage(
        page,
        ({ width }) => {
          const img = document.querySelector<HTMLImageElement>(
            '[data-testid="reader"] article img[alt="Coloured noise"]',
          );
          return (
            document.querySelector('[data-testid="reader"] article h1')?.textContent === 'A pictured page' &&
            img !== null &&
            img.complete &&
            img.naturalWidth === width
          );
        },
        PICTURE_SIZE,
        'the saved page and its picture show offline',
      );
      expect(imageRequests.length).toBe(asked);
      await shot('reader-offline');
      await page.goto(filesUrl('src/geometry.ts'));
      await waitInPage(
        page,
        () =>
          document.querySelector('.source-lines[data-highlight="highlighted"] [data-line="3"] .source-text')
            ?.textContent === 'export const origin: Point = { x: 0, y: 0 };',
        null,
        'the file opens highlighted offline',
        HIGHLIGHT_WAIT_MS,
      );
      expect(await page.evaluate(() => document.querySelector('.file-bar')?.textContent ?? '', null)).toContain(
        'saved on this device',
      );
    }, 90_000);
  });
}
