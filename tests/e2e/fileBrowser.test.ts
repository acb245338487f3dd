import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeHash } from '../../lib/client/appRoute';
import { REPO_ROOT } from '../../server/runtime/paths';
import { connectChromium } from '../fixtures/sharedChromium';
import { makeFilesProject, OUTSIDE_TEXT, SECRET_TEXT, type FilesProject } from '../fixtures/filesProject';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { pairThroughLink, startupPairingCode } from './appHarness';
import { waitUntil } from '../fixtures/waitUntil';

// FILE-3, FILE-4, HL-1, PWA-3 in real Chromium against the real runtime: browse a project, open
// source, an image, a video and Markdown from verified chunks, and open a file again offline.

const TS_SOURCE = [
  '// a comment',
  'export interface Point { x: number; y: number }',
  'export const origin: Point = { x: 0, y: 0 };',
  'function norm(p: Point): number {',
  '  return Math.hypot(p.x, p.y);',
  '}',
  '',
].join('\n');
const MARKDOWN = [
  '# Release notes',
  '',
  'Some **bold** text and a [safe link](https://example.invalid/page) and a [bad link](javascript:alert(1)).',
  '',
  '<b id="raw-html">raw html</b>',
  '',
  '<img src=x onerror="window.__pwned = true">',
  '',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  '',
  '```ts',
  'const answer: number = 42;',
  '```',
  '',
].join('\n');

/** A short WebM recorded by Chromium itself from a canvas, so the video is real and playable. */
async function recordWebm(page: Page): Promise<Buffer> {
  const bytes = await page.evaluate(async () => {
    const canvas = document.createElement('canvas');
    canvas.width = 64;
    canvas.height = 48;
    const paint = canvas.getContext('2d')!;
    const stream = canvas.captureStream(25);
    const recorder = new MediaRecorder(stream, { mimeType: 'video/webm;codecs=vp8' });
    const parts: Blob[] = [];
    recorder.ondataavailable = (e) => parts.push(e.data);
    const stopped = new Promise((resolve) => (recorder.onstop = resolve));
    recorder.start();
    for (let i = 0; i < 12; i++) {
      paint.fillStyle = `hsl(${i * 30}, 80%, 50%)`;
      paint.fillRect(0, 0, 64, 48);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    recorder.stop();
    await stopped;
    return [...new Uint8Array(await new Blob(parts).arrayBuffer())];
  });
  return Buffer.from(bytes);
}

const filesUrl = (origin: string, projectDirectory: string | null, filePath = '') =>
  `${origin}/${routeHash({ kind: 'files', projectDirectory, path: filePath })}`;

describe('FILE-4 file browser in Chromium', () => {
  let browser: Browser;
  let files: FilesProject;
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess | undefined;

  beforeAll(async () => {
    browser = await connectChromium();
    files = makeFilesProject();
    dirs = makeRuntimeDirs(0);
    fs.writeFileSync(path.join(files.project, 'src', 'geometry.ts'), TS_SOURCE);
    fs.writeFileSync(path.join(files.project, 'NOTES.md'), MARKDOWN);
    fs.writeFileSync(path.join(files.project, 'index.html'), '<!doctype html><title>t</title><p>hello</p>');
    fs.copyFileSync(path.join(REPO_ROOT, 'public', 'icons', 'icon-192.png'), path.join(files.project, 'icon.png'));
  });
  afterAll(async () => {
    await browser?.close();
    await runtime?.stopIfRunning();
    dirs?.remove();
    files?.remove();
  });

  it('FILE-4 browses a project, opens highlighted TypeScript, an image, a video and Markdown, refuses FILE-3 paths, and opens a file again offline (PWA-3)', async () => {
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: [files.project] });
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await pairThroughLink(page, runtime.appOrigin, startupPairingCode(runtime));
    fs.writeFileSync(path.join(files.project, 'clip.webm'), await recordWebm(page));
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await page.getByText('Connected', { exact: true }).waitFor();

    // Files → the project → its folder, lazily: hidden secrets and links out are not shown.
    await page.getByRole('link', { name: 'Files', exact: true }).click();
    await page
      .getByRole('link', { name: /project/ })
      .first()
      .click();
    const listing = page.getByRole('list', { name: 'Folder contents' });
    await listing.waitFor();
    const names = await listing.locator('a .grow').allTextContents();
    expect(names).toEqual([
      '%2e%2e',
      'nested',
      'src',
      '.gitignore',
      'clip.webm',
      'icon.png',
      'index.html',
      'link-inside.ts',
      'NOTES.md',
      'README.md',
    ]);
    expect(await listing.getByText('icon.png').locator('..').locator('.muted').textContent()).toMatch(/KiB$/);

    // Keyboard: focus the "src" entry and press Enter.
    await listing.getByRole('link', { name: /src/ }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: /geometry\.ts/ }).click();
    const source = page.locator('.source-lines[data-highlight="highlighted"]');
    await source.waitFor();
    expect(await page.getByRole('navigation', { name: 'Folder path' }).textContent()).toMatch(
      /Projects›project›src›geometry\.ts/,
    );
    // Highlighted: the keyword "export" and the comment are spans of different, non-default colours.
    const colourOf = (lineNumber: number, text: string) =>
      source
        .locator(`[data-line="${lineNumber}"] .source-text span`)
        .filter({ hasText: new RegExp(`^${text}$`) })
        .first()
        .evaluate((el) => getComputedStyle(el).color);
    const keyword = await colourOf(2, 'export');
    const comment = await colourOf(1, '// a comment');
    const plainColour = await source.evaluate((el) => getComputedStyle(el).color);
    expect(keyword).not.toBe(comment);
    expect(keyword).not.toBe(plainColour);
    expect(await source.locator('[data-line="3"] .source-text span').count()).toBeGreaterThan(5);
    expect(await source.locator('[data-line="3"] .source-text').textContent()).toBe(
      'export const origin: Point = { x: 0, y: 0 };',
    );

    // An image from a blob URL of its rendition, decoded (never enlarged past its 192 pixels).
    await page.goto(filesUrl(runtime.appOrigin, files.project, 'icon.png'));
    const image = page.locator('.file-view img');
    await image.waitFor();
    await waitUntil(
      () => image.evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth === 192),
      'the image decodes',
    );
    expect(await image.getAttribute('src')).toMatch(/^blob:/);

    // A video as a rendition played through the service worker's range reads (FILE-10, FILE-13):
    // its metadata loads, at the recorded size.
    await page.goto(filesUrl(runtime.appOrigin, files.project, 'clip.webm'));
    const video = page.locator('.file-view video');
    await video.waitFor();
    await waitUntil(
      () =>
        video.evaluate((el) => (el as HTMLVideoElement).readyState >= 1 && (el as HTMLVideoElement).videoWidth === 64),
      'the video loads its metadata',
    );
    expect(await video.getAttribute('data-source')).toBe('range');

    // Markdown: rendered, raw HTML not rendered, unsafe links dropped, fenced code highlighted.
    await page.goto(filesUrl(runtime.appOrigin, files.project, 'NOTES.md'));
    const markdown = page.locator('.markdown-view');
    await markdown.locator('h1').filter({ hasText: 'Release notes' }).waitFor();
    expect(await markdown.locator('strong').textContent()).toBe('bold');
    expect(await markdown.locator('table td').allTextContents()).toEqual(['1', '2']);
    expect(await page.locator('#raw-html').count()).toBe(0);
    // The tags are dropped; their inner text is ordinary Markdown text.
    expect(await markdown.locator('b').count()).toBe(0);
    expect(await markdown.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();
    expect(await markdown.getByRole('link', { name: 'safe link' }).getAttribute('href')).toBe(
      'https://example.invalid/page',
    );
    expect(await markdown.getByRole('link', { name: 'bad link' }).count()).toBe(0);
    const code = markdown.locator('code[data-highlighted="true"]');
    await code.waitFor();
    expect(await code.locator('span[style*="color"]').count()).toBeGreaterThan(2);

    // HTML offers Preview, which goes to the preview route.
    await page.goto(filesUrl(runtime.appOrigin, files.project, 'index.html'));
    await page.getByRole('button', { name: 'Preview' }).click();
    await waitUntil(
      () => page.evaluate(() => location.hash.startsWith('#/preview?')),
      'Preview navigates to the preview route',
    );
    expect(new URLSearchParams(await page.evaluate(() => location.hash.split('?')[1]!))).toEqual(
      new URLSearchParams({ dir: files.project, path: 'index.html' }),
    );

    // FILE-3, FILE-6 from the browser: refused paths show why and never their content.
    const refusals: [string, string][] = [
      ['.env', 'is kept private'],
      ['.git/config', 'is kept private'],
      ['env-alias', 'is kept private'],
      ['link-outside.txt', 'leads outside the project'],
      ['link-outside-dir/secret.txt', 'leads outside the project'],
      ['../outside/secret.txt', 'cannot contain ".."'],
      [`${files.outside}/secret.txt`, 'absolute paths are not allowed'],
    ];
    for (const [refused, message] of refusals) {
      await page.goto(filesUrl(runtime.appOrigin, files.project, refused));
      // The previous refusal's alert may still be up for a moment: wait for this one's words.
      const alert = page.locator('.files [role="alert"]').filter({ hasText: message });
      await alert.waitFor();
      expect(await alert.count(), refused).toBe(1);
      const shown = (await page.locator('.files').textContent()) ?? '';
      expect(shown, refused).not.toContain(SECRET_TEXT.trim());
      expect(shown, refused).not.toContain(OUTSIDE_TEXT.trim());
    }
    await page.goto(filesUrl(runtime.appOrigin, files.outside, 'secret.txt'));
    // Only the hash changes: the view answers the new route without a reload, so wait for it.
    const notProject = page.locator('.files [role="alert"]').filter({ hasText: 'not a project' });
    await notProject.waitFor();
    expect(await notProject.count()).toBe(1);

    // PWA-3: the runtime stops; the same file opens again from this device, still highlighted.
    expect(await runtime.stop()).toBe(0);
    await page.goto(filesUrl(runtime.appOrigin, files.project, 'src/geometry.ts'));
    await page.locator('.source-lines[data-highlight="highlighted"]').waitFor();
    expect(await page.locator('.file-bar').textContent()).toContain('saved on this device');
    expect(await page.locator('.source-lines [data-line="3"] .source-text').textContent()).toBe(
      'export const origin: Point = { x: 0, y: 0 };',
    );
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});
