import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeHash } from '../../lib/client/appRoute';
import { writeTestHeic, writeTestImage, writeTestTone, writeTestVideo } from '../fixtures/mediaFiles';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { connectChromium } from '../fixtures/sharedChromium';
import { waitUntil } from '../fixtures/waitUntil';
import { keptScreenshotPath, pairUnderServiceWorker, playsPast } from './appHarness';
import { docsScreenshotPath, screenFacts } from './screensHarness';

// FILE-10, FILE-13 in real Chromium at phone size: the file browser shows a 3000 × 2000 PNG as a
// rendition made for the screen, plays a video and a tone through the service worker's range
// reads, says why a damaged file shows nothing, and downloads the original.

const filesUrl = (origin: string, projectDirectory: string, filePath: string) =>
  `${origin}/${routeHash({ kind: 'files', projectDirectory, path: filePath })}`;

describe('FILE-10 FILE-13 media renditions in the file browser (Chromium, phone and desktop)', () => {
  let browser: Browser;
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess | undefined;
  let project: string;

  beforeAll(async () => {
    browser = await connectChromium();
    dirs = makeRuntimeDirs(1);
    project = dirs.projectDirs[0]!;
    await writeTestImage(path.join(project, 'photo.png'), 3000, 2000, 'png');
    writeTestVideo(path.join(project, 'clip.mp4'), { width: 1280, height: 720, seconds: 6 });
    writeTestTone(path.join(project, 'tone.wav'), 3);
    // Long enough that its transcode takes seconds, so the player starts before it is done (FILE-16).
    writeTestVideo(path.join(project, 'recording.mp4'), { width: 1280, height: 720, seconds: 30 });
    await writeTestHeic(path.join(project, 'phone.heic'), 960, 720);
    fs.writeFileSync(
      path.join(project, 'broken.png'),
      Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(4000, 9)]),
    );
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await runtime?.stopIfRunning();
    dirs?.remove();
  });

  /**
   * The runtime started (or started again, for a fresh start-up pairing code), and a phone at 2×
   * paired under the service worker, its page errors collected.
   */
  async function phoneUnderServiceWorker(): Promise<{
    app: RuntimeProcess;
    context: BrowserContext;
    page: Page;
    errors: string[];
  }> {
    const app = runtime
      ? await runtime.restart()
      : await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    runtime = app;
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await pairUnderServiceWorker(page, app);
    return { app, context, page, errors };
  }

  it('FILE-10 FILE-13 a phone sees the photo sized for its screen, plays the video and the tone with range reads, and downloads the original', async () => {
    const { app, context, page, errors } = await phoneUnderServiceWorker();

    // The image: 390 × 844 CSS pixels at 2× is a 1024 × 1792 box, so 1024 × 683 pixels of WebP.
    await page.goto(filesUrl(app.appOrigin, project, 'photo.png'));
    const image = page.locator('.file-view img');
    await image.waitFor();
    await waitUntil(
      () => image.evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0),
      'the rendition decodes',
    );
    expect(
      await image.evaluate((el) => [(el as HTMLImageElement).naturalWidth, (el as HTMLImageElement).naturalHeight]),
    ).toEqual([1024, 683]);
    const bar = (await page.locator('.file-bar').textContent()) ?? '';
    expect(bar).toMatch(/^Original \d+(\.\d+)? MiB · shown as WEBP \d+(\.\d+)? KiB/);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: docsScreenshotPath(`media-image-phone-${colorScheme}`) });
      const facts = await screenFacts(page);
      expect.soft(facts.scrollWidth, `${colorScheme}: nothing overflows sideways`).toBeLessThanOrEqual(390);
      expect.soft(facts.smallTargets, `${colorScheme}: small controls`).toEqual([]);
    }

    // "Download original" hands the browser the original's bytes under its name.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download original' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('photo.png');
    const saved = path.join(dirs.dataDir, 'downloaded-photo.png');
    await download.saveAs(saved);
    expect(fs.readFileSync(saved).equals(fs.readFileSync(path.join(project, 'photo.png')))).toBe(true);

    // The video: made for this browser (H.264 MP4 where it decodes H.264, else VP9 WebM), played
    // from a same-origin URL the service worker answers range by range.
    await page.goto(filesUrl(app.appOrigin, project, 'clip.mp4'));
    const video = page.locator('.file-view video');
    await video.waitFor();
    expect(await video.getAttribute('data-source')).toBe('range');
    expect(await video.getAttribute('src')).toMatch(/^\/\.hbcode\/media\/[0-9a-f]{32}$/);
    await playsPast(page, '.file-view video', 0.5);
    const playsH264 = await page.evaluate(
      () => document.createElement('video').canPlayType('video/mp4; codecs="avc1.640028, mp4a.40.2"') !== '',
    );
    expect(await page.locator('.file-bar').textContent()).toContain(playsH264 ? 'shown as MP4' : 'shown as WEBM');
    // Once the rendition is complete, the player reads ranges (FILE-16 streams it only while it is
    // made): opened again, seeking near the end reads from there and the frame there decodes.
    await waitUntil(
      () => !fs.readdirSync(path.join(dirs.dataDir, 'media-renditions')).some((name) => name.endsWith('.part')),
      'the transcode finishes',
      60_000,
    );
    await page.goto(filesUrl(app.appOrigin, project, 'photo.png'));
    await page.goto(filesUrl(app.appOrigin, project, 'clip.mp4'));
    await video.waitFor();
    await playsPast(page, '.file-view video', 0.2);
    await video.evaluate((el) => {
      const media = el as HTMLVideoElement;
      media.pause();
      media.currentTime = 5;
    });
    await waitUntil(
      () =>
        video.evaluate(
          (el) =>
            !(el as HTMLVideoElement).seeking &&
            (el as HTMLVideoElement).readyState >= 2 &&
            (el as HTMLVideoElement).currentTime >= 5,
        ),
      'the seek lands and its frame decodes',
    );
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: docsScreenshotPath('media-video-phone-light') });

    // Audio plays the same way.
    await page.goto(filesUrl(app.appOrigin, project, 'tone.wav'));
    await page.locator('.file-view audio').waitFor();
    await playsPast(page, '.file-view audio', 0.3);

    // A damaged file says so in plain words, and still offers the original.
    await page.goto(filesUrl(app.appOrigin, project, 'broken.png'));
    await page.locator('.file-view [role="alert"]').filter({ hasText: 'could not be decoded' }).waitFor();
    expect(await page.getByRole('button', { name: 'Download original' }).count()).toBe(1);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: docsScreenshotPath('media-damaged-phone-dark') });
    expect(errors).toEqual([]);
    await context.close();

    // Desktop, light and dark: the same photo, a larger rendition.
    const desktop = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const wide = await desktop.newPage();
    runtime = await app.restart();
    await pairUnderServiceWorker(wide, runtime);
    await wide.goto(filesUrl(runtime.appOrigin, project, 'photo.png'));
    const wideImage = wide.locator('.file-view img');
    await waitUntil(
      () => wideImage.evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0),
      'the desktop rendition decodes',
    );
    expect(await wideImage.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(1536);
    for (const colorScheme of ['light', 'dark'] as const) {
      await wide.emulateMedia({ colorScheme });
      await wide.screenshot({ path: docsScreenshotPath(`media-image-desktop-${colorScheme}`) });
    }
    await desktop.close();
  }, 240_000);

  it('FILE-14 FILE-15 a video shows its first frame as its poster; what was viewed shows again offline after a reload, and a changed file is never shown stale', async () => {
    const { app, context, page, errors } = await phoneUnderServiceWorker();
    const naturalSize = (selector: string) =>
      page
        .locator(selector)
        .evaluate((el) => [(el as HTMLImageElement).naturalWidth, (el as HTMLImageElement).naturalHeight]);
    const decoded = (selector: string) =>
      waitUntil(
        () =>
          page
            .locator(selector)
            .evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0),
        `${selector} decodes`,
      );

    // A HEIC photo, decoded on the desktop, shown as a WebP made for the screen.
    await page.goto(filesUrl(app.appOrigin, project, 'phone.heic'));
    await decoded('.file-view img');
    expect(await naturalSize('.file-view img')).toEqual([960, 720]);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: keptScreenshotPath('media', `heic-phone-${colorScheme}`) });
    }

    // The video: its first frame arrives as a still and becomes the player's poster (FILE-14).
    await page.goto(filesUrl(app.appOrigin, project, 'clip.mp4'));
    const video = page.locator('.file-view video');
    await video.waitFor();
    const poster = await waitUntil(() => video.getAttribute('poster'), 'the first frame becomes the poster');
    expect(poster).toMatch(/^blob:/);
    const posterSize = (url: string) =>
      new Promise<number[]>((resolve, reject) => {
        const image = new Image();
        image.onload = () => resolve([image.naturalWidth, image.naturalHeight]);
        image.onerror = () => reject(new Error('the poster does not decode'));
        image.src = url;
      });
    expect(await page.evaluate(posterSize, poster)).toEqual([1024, 576]);
    await playsPast(page, '.file-view video', 0.5);
    // The rendition is small, so it is kept whole: every chunk of it is in Cache Storage.
    const keptVideoChunks = () =>
      page.evaluate(async () => {
        const cache = await caches.open('hbcode-media-renditions');
        const keys = (await cache.keys())
          .map((request) => request.url)
          .filter((url) => url.includes('clip.mp4') && url.includes('kind=') && !url.includes('kind=webp'));
        const responses = await Promise.all(keys.map((key) => cache.match(key)));
        const header = JSON.parse(responses[0]?.headers.get('x-hbcode-chunk') ?? '{"size":-1}') as { size: number };
        return {
          chunks: keys.length,
          bytes: responses.reduce((sum, r) => sum + Number(r?.headers.get('x-hbcode-bytes') ?? 0), 0),
          size: header.size,
        };
      });
    await waitUntil(async () => {
      const kept = await keptVideoChunks();
      return kept.chunks > 0 && kept.bytes === kept.size;
    }, 'the whole video rendition is kept');

    // The photo, viewed; then changed on the desktop: opened again online it shows the new version.
    await page.goto(filesUrl(app.appOrigin, project, 'photo.png'));
    await decoded('.file-view img');
    expect(await naturalSize('.file-view img')).toEqual([1024, 683]);
    await writeTestImage(path.join(project, 'photo.png'), 2000, 2000, 'png');
    await page.reload();
    await waitUntil(
      async () =>
        (await naturalSize('.file-view img'))[0] === 1024 && (await naturalSize('.file-view img'))[1] === 1024,
      'the changed photo shows as it is now',
    );

    // Offline: the runtime stops, the network goes, the page reloads from the service worker.
    expect(await app.stop()).toBe(0);
    await context.setOffline(true);
    await page.reload();
    await page.getByTestId('offline-banner').waitFor();
    await decoded('.file-view img');
    expect(await naturalSize('.file-view img')).toEqual([1024, 1024]);
    expect(await page.locator('.file-bar').textContent()).toMatch(/shown as WEBP .* · saved on this device$/);
    expect(await page.getByRole('button', { name: 'Download original' }).count()).toBe(0);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: keptScreenshotPath('media', `offline-photo-phone-${colorScheme}`) });
    }
    // The video plays offline from the kept chunks, through the same range route.
    await page.goto(filesUrl(app.appOrigin, project, 'clip.mp4'));
    await video.waitFor();
    await playsPast(page, '.file-view video', 0.5);
    expect(await page.locator('.file-bar').textContent()).toContain('saved on this device');
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: keptScreenshotPath('media', `offline-video-phone-${colorScheme}`) });
    }
    // A file never viewed here says so, as any file not saved on this device.
    await page.goto(filesUrl(app.appOrigin, project, 'tone.wav'));
    await page.getByText('was not saved on this device').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  }, 240_000);

  it('FILE-16 a phone plays a long video while its rendition is still being made', async () => {
    const { app, context, page, errors } = await phoneUnderServiceWorker();
    // The runtime's transcode is running while its part file is in the rendition cache.
    const transcoding = () =>
      fs.readdirSync(path.join(dirs.dataDir, 'media-renditions')).some((name) => name.endsWith('.part'));
    await page.goto(filesUrl(app.appOrigin, project, 'recording.mp4'));
    const video = page.locator('.file-view video');
    await video.waitFor();
    expect(await video.getAttribute('src')).toMatch(/^\/\.hbcode\/media\/[0-9a-f]{32}$/);
    await video.evaluate((el) => {
      const media = el as HTMLVideoElement;
      media.muted = true;
      void media.play();
    });
    await waitUntil(
      () =>
        video.evaluate((el) => (el as HTMLVideoElement).readyState >= 2 && (el as HTMLVideoElement).currentTime > 0.5),
      'the first frame shows and the video plays',
    );
    expect(transcoding(), 'the video plays before its transcode is done').toBe(true);
    expect(await page.locator('.file-bar').textContent()).toContain('shown as MP4 while it is made');
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: keptScreenshotPath('media', `growing-video-phone-${colorScheme}`) });
    }
    // It plays on to the end of what is made, and the rendition is kept complete once done.
    await waitUntil(() => !transcoding(), 'the transcode finishes', 60_000);
    await waitUntil(() => video.evaluate((el) => (el as HTMLVideoElement).currentTime > 3), 'the video keeps playing');
    expect(errors).toEqual([]);
    await context.close();
  }, 240_000);
});
