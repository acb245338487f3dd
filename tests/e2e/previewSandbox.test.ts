import nodeCrypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectChromium } from '../fixtures/sharedChromium';
import { writeSite } from '../fixtures/previewSite';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { pairThroughLink, startupPairingCode } from './appHarness';
import { waitUntil } from '../fixtures/waitUntil';
import { openPreview, previewedFrame } from './previewHarness';

const VIDEO_BYTES = 20 * 1024 * 1024;

declare global {
  interface Window {
    __site?: { answer: number; info: { name: string } };
    __jsLinkRan?: boolean;
  }
}

/** A real WebM recorded by Chromium's MediaRecorder from a canvas (no extra system package). */
async function recordWebm(page: Page): Promise<Buffer> {
  const base64 = await page.evaluate(async () => {
    const canvas = document.createElement('canvas');
    canvas.width = 320;
    canvas.height = 240;
    const context = canvas.getContext('2d')!;
    const stream = canvas.captureStream(30);
    const recorder = new MediaRecorder(stream, { mimeType: 'video/webm;codecs=vp8', videoBitsPerSecond: 4_000_000 });
    const parts: Blob[] = [];
    recorder.ondataavailable = (event) => parts.push(event.data);
    const stopped = new Promise((resolve) => (recorder.onstop = resolve));
    recorder.start(100);
    const started = performance.now();
    while (performance.now() - started < 1500) {
      context.fillStyle = `hsl(${Math.round(performance.now()) % 360} 80% 50%)`;
      context.fillRect(0, 0, 320, 240);
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
    recorder.stop();
    await stopped;
    const bytes = new Uint8Array(await new Blob(parts, { type: 'video/webm' }).arrayBuffer());
    let text = '';
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(text);
  });
  return Buffer.from(base64, 'base64');
}

/**
 * The recording padded to about 20 MiB with an EBML Void element (ID 0xEC, which players skip),
 * so the file is large enough that reading it whole first would show.
 */
function padWebm(recording: Buffer, total: number): Buffer {
  const voidSize = total - recording.length - 9;
  const header = Buffer.alloc(9);
  header[0] = 0xec;
  header[1] = 0x01; // an 8-byte size field
  header.writeUIntBE(Math.floor(voidSize / 2 ** 32), 2, 3);
  header.writeUInt32BE(voidSize % 2 ** 32, 5);
  return Buffer.concat([recording, header, nodeCrypto.randomBytes(voidSize)]);
}

describe('PRV-3 PRV-4 PRV-5 PRV-6 a multi-file site in the preview sandbox, in Chromium against the real runtime', () => {
  let dirs: RuntimeDirs;
  let site: string;
  let runtime: RuntimeProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let video: Buffer;
  const workerResponses: Response[] = [];

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    site = dirs.projectDirs[0]!;
    writeSite(site);
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: [site] });
    browser = await connectChromium();
    context = await browser.newContext();
    context.on('response', (response) => {
      if (response.fromServiceWorker() && /^http:\/\/p-[0-9a-f]{32}\./.test(response.url()))
        workerResponses.push(response);
    });
    const recorder = await context.newPage();
    video = padWebm(await recordWebm(recorder), VIDEO_BYTES);
    await recorder.close();
    page = await context.newPage();
    fs.mkdirSync(path.join(site, 'media'), { recursive: true });
    fs.writeFileSync(path.join(site, 'media/clip.webm'), video);
    await pairThroughLink(page, runtime.appOrigin, startupPairingCode(runtime));
    await openPreview(page, runtime, site, 'index.html');
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  it('PRV-5 the site renders from the runtime through the preview worker: module imports, fetched JSON, CSS, image, video', async () => {
    const frame = await previewedFrame(page, '/index.html');
    await frame.locator('#status', { hasText: 'ready 42 sales' }).waitFor({ timeout: 20_000 });
    expect(await frame.evaluate(() => window.__site)).toEqual({ answer: 42, info: { name: 'sales', count: 3 } });
    expect(await frame.evaluate(() => getComputedStyle(document.getElementById('title')!).color)).toBe('rgb(1, 2, 3)');
    await waitUntil(
      () => frame.evaluate(() => (document.getElementById('logo') as HTMLImageElement).naturalWidth === 192),
      'the image decodes',
    );
    await waitUntil(
      () => frame.evaluate(() => (document.getElementById('clip') as HTMLVideoElement).readyState >= 2),
      'the video has its first frame',
    );
    expect(await frame.evaluate(() => location.origin)).toMatch(/^http:\/\/p-[0-9a-f]{32}\.hbcode\.localhost:\d+$/);
    const paths = new Set(workerResponses.map((r) => new URL(r.url()).pathname));
    for (const file of [
      '/index.html',
      '/css/style.css',
      '/js/main.js',
      '/js/lib/answer.js',
      '/data/info.json',
      '/img/logo.png',
      '/media/clip.webm',
    ])
      expect(paths, file).toContain(file);
  });

  it('PRV-3 answers carry no-store, nosniff and a correct Content-Type; OPTIONS is 204, other methods 405, missing files 404', async () => {
    const frame = await previewedFrame(page, '/index.html');
    const answers = await frame.evaluate(async () => {
      const read = async (url: string, init?: RequestInit) => {
        const r = await fetch(url, init).catch((e: Error) => {
          throw new Error(`${init?.method ?? 'GET'} ${url}: ${e.message}`);
        });
        return {
          status: r.status,
          type: r.headers.get('content-type'),
          cache: r.headers.get('cache-control'),
          sniff: r.headers.get('x-content-type-options'),
          length: (await r.arrayBuffer()).byteLength,
        };
      };
      return {
        js: await read('/js/main.js'),
        json: await read('/data/info.json'),
        png: await read('/img/logo.png'),
        html: await read('/pages/second.html'),
        head: await read('/data/info.json', { method: 'HEAD' }),
        options: await read('/data/info.json', { method: 'OPTIONS' }),
        post: await read('/data/info.json', { method: 'POST', body: 'x' }),
        put: await read('/data/info.json', { method: 'PUT', body: 'x' }),
        missing: await read('/nothing/here.js'),
      };
    });
    for (const answer of Object.values(answers)) expect(answer).toMatchObject({ cache: 'no-store', sniff: 'nosniff' });
    expect(answers.js).toMatchObject({ status: 200, type: 'text/javascript' });
    expect(answers.json).toMatchObject({ status: 200, type: 'application/json', length: 26 });
    expect(answers.png).toMatchObject({
      status: 200,
      type: 'image/png',
      length: fs.statSync(path.join(site, 'img/logo.png')).size,
    });
    expect(answers.html).toMatchObject({ status: 200, type: 'text/html; charset=utf-8' });
    expect(answers.head).toMatchObject({ status: 200, type: 'application/json', length: 0 });
    expect(answers.options.status).toBe(204);
    expect(answers.post.status).toBe(405);
    expect(answers.put.status).toBe(405);
    expect(answers.missing.status).toBe(404);
  });

  it('PRV-3 the 20 MiB video is answered by Range: 206 with a correct Content-Range and exactly those bytes', async () => {
    const frame = await previewedFrame(page, '/index.html');
    // The same generous deadline as waitUntil's: on a busy machine the ranged reads behind a seek
    // pass through the worker and the runtime while other files' pages share this Chromium.
    const seeked = await frame.evaluate(
      (deadlineMs) =>
        new Promise<boolean>((resolve) => {
          const clip = document.getElementById('clip') as HTMLVideoElement;
          clip.addEventListener('seeked', () => resolve(true), { once: true });
          setTimeout(() => resolve(false), deadlineMs);
          clip.currentTime = 0.5;
        }),
      30_000,
    );
    expect(seeked, 'the video seeks').toBe(true);
    const mediaAnswers = workerResponses.filter((r) => r.url().endsWith('/media/clip.webm'));
    expect(
      mediaAnswers.some((r) => r.status() === 206),
      'the video element read by ranges',
    ).toBe(true);
    const start = 15_000_000;
    const ranged = await frame.evaluate(async (start) => {
      const read = async (range: string) => {
        const r = await fetch('/media/clip.webm', { headers: { range } });
        const bytes = new Uint8Array(await r.arrayBuffer());
        const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
        return {
          status: r.status,
          range: r.headers.get('content-range'),
          length: r.headers.get('content-length'),
          type: r.headers.get('content-type'),
          bytes: bytes.length,
          sha: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join(''),
        };
      };
      return {
        middle: await read(`bytes=${start}-${start + 99_999}`),
        tail: await read(`bytes=${start}-`),
        suffix: await read('bytes=-1000'),
        past: await read('bytes=999999999-'),
      };
    }, start);
    const sha = (b: Buffer) => nodeCrypto.createHash('sha256').update(b).digest('hex');
    expect(ranged.middle).toEqual({
      status: 206,
      range: `bytes ${start}-${start + 99_999}/${video.length}`,
      length: '100000',
      type: 'video/webm',
      bytes: 100_000,
      sha: sha(video.subarray(start, start + 100_000)),
    });
    expect(ranged.tail).toMatchObject({
      status: 206,
      range: `bytes ${start}-${video.length - 1}/${video.length}`,
      bytes: video.length - start,
      sha: sha(video.subarray(start)),
    });
    expect(ranged.suffix).toMatchObject({
      status: 206,
      range: `bytes ${video.length - 1000}-${video.length - 1}/${video.length}`,
      sha: sha(video.subarray(-1000)),
    });
    expect(ranged.past).toMatchObject({ status: 416, range: `bytes */${video.length}` });
  });

  it('PRV-4 the HTML answer gets the app theme at the end of <head> and the navigation script after the end; the file on disk is unchanged', async () => {
    const frame = await previewedFrame(page, '/index.html');
    const seen = await frame.evaluate(() => {
      const style = document.getElementById('hb-theme');
      return {
        inHead: style?.parentElement === document.head && document.head.lastElementChild === style,
        bg: getComputedStyle(document.documentElement).getPropertyValue('--hb-bg').trim(),
      };
    });
    expect(seen.inHead).toBe(true);
    expect(seen.bg).toMatch(/^#[0-9a-f]{6}$/);
    const served = await frame.evaluate(async () => (await fetch('/index.html')).text());
    expect(served.indexOf('<style id="hb-theme">')).toBeLessThan(served.indexOf('</head>'));
    expect(served.lastIndexOf('<script>')).toBeGreaterThan(served.indexOf('</html>'));
    expect(served).toContain('hbcode.html.open');
    expect(fs.readFileSync(path.join(site, 'index.html'), 'utf8')).not.toContain('hb-theme');
  });

  it('PRV-6 a local link enters the preview history (Back, Forward); other schemes do nothing; a web link opens the reader', async () => {
    const home = await previewedFrame(page, '/index.html');
    await home.locator('#js-link').click();
    await home.locator('#data-link').click();
    await home.locator('#file-link').click();
    expect(await home.evaluate(() => window.__jsLinkRan ?? false)).toBe(false);
    expect(new URL(home.url()).pathname).toBe('/index.html');
    expect(await page.getByRole('button', { name: 'Back' }).isDisabled()).toBe(true);

    await home.locator('#local-link').click();
    const second = await previewedFrame(page, '/pages/second.html');
    await second.locator('#second').waitFor();
    await waitUntil(() => page.getByRole('button', { name: 'Back' }).isEnabled(), 'Back is offered');
    await page.getByRole('button', { name: 'Back' }).click();
    await (await previewedFrame(page, '/index.html')).locator('#title').waitFor();
    await page.getByRole('button', { name: 'Forward' }).click();
    await (await previewedFrame(page, '/pages/second.html')).locator('#second').waitFor();
    await page.getByRole('button', { name: 'Back' }).click();

    const again = await previewedFrame(page, '/index.html');
    await again.locator('#web-link').click();
    await waitUntil(() => page.url().includes('#/read?'), 'the app opens the reader');
    expect(new URL(page.url()).hash).toBe('#/read?url=' + encodeURIComponent('https://example.org/article'));
  });

  it('PRV-6 a file changed on disk refreshes the preview', async () => {
    await openPreview(page, runtime, site, 'index.html');
    const frame = await previewedFrame(page, '/index.html');
    await frame.locator('#status', { hasText: 'ready 42 sales' }).waitFor({ timeout: 20_000 });
    fs.writeFileSync(path.join(site, 'data/info.json'), '{"name":"changed","count":4}');
    await waitUntil(async () => {
      const current = page.frames().find((f) => f.url().endsWith('/index.html') && /^http:\/\/p-/.test(f.url()));
      return (
        (await current
          ?.locator('#status')
          .textContent()
          .catch(() => null)) === 'ready 42 changed'
      );
    }, 'the preview shows the changed data');
  });
});
