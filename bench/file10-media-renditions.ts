import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeTestImage, writeTestVideo } from '../tests/fixtures/mediaFiles';
import { startRuntimeProcess } from '../tests/fixtures/runtimeProcess';
import { readThroughVerifiedChunks } from '../tests/fixtures/verifiedRead';
import type { Benchmark, BenchOutcome } from './lib/report';
import { makeTempDir } from './lib/tempDirs';

const run = promisify(execFile);
const MIB = 1024 * 1024;
/** A phone's screen in device pixels (390 × 844 at 3×, rounded up as the app does). */
const PHONE_BOX = { maxWidth: 1280, maxHeight: 2560 };

/** A plain static file server with Range, counting the bytes it sends: the reference for a player reading the original. */
async function serveFolder(folder: string): Promise<{ url: (name: string) => string; sent: () => number; close: () => Promise<void> }> {
  let sent = 0;
  const server = http.createServer((req, res) => {
    const file = path.join(folder, path.basename(decodeURIComponent(req.url ?? '/')));
    const size = fs.statSync(file).size;
    const match = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const start = match ? Number(match[1]) : 0;
    const end = match && match[2] ? Math.min(Number(match[2]), size - 1) : size - 1;
    res.writeHead(match ? 206 : 200, { 'content-type': 'video/mp4', 'accept-ranges': 'bytes', 'content-length': end - start + 1, ...(match ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}) });
    const stream = fs.createReadStream(file, { start, end });
    stream.on('data', (piece) => (sent += piece.length));
    stream.pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: (name) => `http://127.0.0.1:${port}/${name}`, sent: () => sent, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Time until ffmpeg has decoded the first video frame of `input` (a URL or a file). */
async function firstFrameMs(input: string): Promise<number> {
  const started = performance.now();
  await run('ffmpeg', ['-hide_banner', '-v', 'error', '-i', input, '-map', '0:v:0', '-frames:v', '1', '-f', 'null', '-']);
  return performance.now() - started;
}

/**
 * FILE-10 at full scale: a 20-megapixel photo shown as a phone-sized rendition against reading the
 * original whole over the same WebSocket; and the first frame of a large 1080p video's rendition
 * (made cold, then kept) against a player reading the original over plain HTTP with ranges.
 */
export const file10MediaRenditions: Benchmark = {
  name: 'file10-media-renditions',
  async run(progress): Promise<BenchOutcome> {
    const project = fs.realpathSync(makeTempDir('hbcode-bench-media-'));
    progress('FILE-10: writing a 5472 × 3648 JPEG photo and a 10 s 1080p video');
    await writeTestImage(path.join(project, 'photo.jpg'), 5472, 3648, 'jpeg');
    writeTestVideo(path.join(project, 'talk.mp4'), { width: 1920, height: 1080, seconds: 10, rate: 30 });
    const photoBytes = fs.statSync(path.join(project, 'photo.jpg')).size;
    const videoBytes = fs.statSync(path.join(project, 'talk.mp4')).size;
    const runtime = await startRuntimeProcess({ projectDirs: [project] });
    const client = await runtime.connect();
    const plain = await serveFolder(project);
    try {
      const photo = { projectDirectory: project, path: 'photo.jpg' };
      let started = performance.now();
      const original = await readThroughVerifiedChunks(client, photo);
      const originalMs = performance.now() - started;
      started = performance.now();
      const cold = await client.callBinary('files.readMediaRendition', { ...photo, ...PHONE_BOX, offset: 0 });
      const imageColdMs = performance.now() - started;
      started = performance.now();
      await client.callBinary('files.readMediaRendition', { ...photo, ...PHONE_BOX, offset: 0 });
      const imageWarmMs = performance.now() - started;
      if (cold.result.nextOffset !== null) throw new Error('the photo rendition is larger than one chunk');
      progress(`   photo: original ${original.bytes} bytes in ${originalMs.toFixed(0)} ms; rendition ${cold.result.size} bytes in ${imageColdMs.toFixed(0)} ms (kept: ${imageWarmMs.toFixed(0)} ms)`);

      const video = { projectDirectory: project, path: 'talk.mp4', maxWidth: 1280, maxHeight: 720 };
      const plainMs = await firstFrameMs(plain.url('talk.mp4'));
      const plainBytes = plain.sent();
      started = performance.now();
      const first = await client.callBinary('files.readMediaRendition', { ...video, offset: 0 });
      const head = path.join(project, 'rendition-head.mp4');
      fs.writeFileSync(head, first.data);
      const videoColdMs = performance.now() - started + (await firstFrameMs(head));
      started = performance.now();
      const again = await client.callBinary('files.readMediaRendition', { ...video, offset: 0 });
      fs.writeFileSync(head, again.data);
      const videoWarmMs = performance.now() - started + (await firstFrameMs(head));
      progress(`   video: original over HTTP ${plainMs.toFixed(0)} ms, ${plainBytes} bytes to the first frame; rendition ${first.result.size} bytes, first frame ${videoColdMs.toFixed(0)} ms cold, ${videoWarmMs.toFixed(0)} ms kept`);

      const comparison = (label: string, unit: 'ms' | 'MiB', ours: number, reference: number, oursName: string, referenceName: string) =>
        ({ rule: 'FILE-10', label, unit, better: 'lower' as const, oursName, referenceName, ours, reference, target: null });
      return {
        comparisons: [
          comparison('20 MP photo on a phone: time to the bytes shown', 'ms', imageColdMs, originalMs, 'rendition (made)', 'original over the socket'),
          comparison('20 MP photo on a phone: time, rendition kept', 'ms', imageWarmMs, originalMs, 'rendition (kept)', 'original over the socket'),
          comparison('20 MP photo on a phone: bytes', 'MiB', cold.result.size / MIB, photoBytes / MIB, 'WebP rendition', 'JPEG original'),
          comparison('1080p 10 s video: first frame, rendition made now', 'ms', videoColdMs, plainMs, 'rendition (made)', 'original over plain HTTP'),
          comparison('1080p 10 s video: first frame, rendition kept', 'ms', videoWarmMs, plainMs, 'rendition (kept)', 'original over plain HTTP'),
          comparison('1080p 10 s video: bytes to the first frame', 'MiB', first.result.byteCount / MIB, plainBytes / MIB, 'first 1 MiB chunk', 'ranges a player reads'),
          comparison('1080p 10 s video: whole file', 'MiB', first.result.size / MIB, videoBytes / MIB, '720p H.264 rendition', '1080p original'),
        ],
        parameters: { photo: '5472 × 3648 JPEG (quality 92, noise over a gradient)', video: '1920 × 1080, 30 fps, 10 s testsrc + tone, x264 ultrafast', phoneBox: PHONE_BOX, videoBox: '1280 × 720' },
        measurements: { photoBytes, imageRenditionBytes: cold.result.size, originalMs, imageColdMs, imageWarmMs, videoBytes, videoRenditionBytes: first.result.size, plainMs, plainBytes, videoColdMs, videoWarmMs },
        notes: [
          'First frame times include ffmpeg decoding it (the same decoder both ways); a made rendition includes the whole transcode, which runs before its first chunk is answered.',
          'The original over plain HTTP is a static server with Range on loopback: what a player reading the original directly would fetch.',
        ],
      };
    } finally {
      client.close();
      await plain.close();
      await runtime.stop();
    }
  },
};
