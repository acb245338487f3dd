import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { FILE_CHANGED_MESSAGE, MEDIA_CHUNK_BYTES } from '../../../lib/protocol/files';
import {
  probeMedia,
  readWholeRendition,
  writeBlankPng,
  writeTestHeic,
  writeTestImage,
  writeTestTone,
  writeTestVideo,
} from '../../fixtures/mediaFiles';
import { childrenRunning } from '../../fixtures/processTree';
import { expectRpcError } from '../../fixtures/rpcErrors';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { waitUntil } from '../../fixtures/waitUntil';

/**
 * An ffmpeg that notes how many transcodes run beside it (a marker file each while it runs), so
 * the test can see the runtime's cap on parallel transcodes (FILE-11); and, once, when the file
 * `change-during` names a file, appends to it before transcoding: an original changed while its
 * rendition is made (FILE-12).
 */
function writeCountingFfmpeg(folder: string): string {
  const script = path.join(folder, 'ffmpeg');
  fs.mkdirSync(path.join(folder, 'running'), { recursive: true });
  fs.writeFileSync(
    script,
    `#!/bin/sh\nmarker="${folder}/running/$$"\ntouch "$marker"\nls "${folder}/running" | wc -l >> "${folder}/counts"\nif [ -f "${folder}/change-during" ]; then echo more >> "$(cat "${folder}/change-during")"; rm -f "${folder}/change-during"; fi\nffmpeg "$@"\nstatus=$?\nrm -f "$marker"\nexit $status\n`,
    { mode: 0o755 },
  );
  return script;
}

describe('FILE-10 FILE-11 FILE-12 media renditions with real sharp and ffmpeg over a real WebSocket', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let project: string;
  let tools: string;

  beforeAll(async () => {
    dirs = makeRuntimeDirs(1);
    project = dirs.projectDirs[0]!;
    tools = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-ffmpeg-'));
    await writeTestImage(path.join(project, 'photo.png'), 3000, 2000, 'png');
    await writeTestImage(path.join(project, 'scan.tiff'), 1200, 1600, 'tiff');
    await writeTestHeic(path.join(project, 'phone.heic'), 1200, 800);
    writeTestVideo(path.join(project, 'clip.mp4'), { width: 640, height: 480, seconds: 2 });
    for (const name of ['a', 'b', 'c']) writeTestTone(path.join(project, `tone-${name}.wav`), 1);
    fs.writeFileSync(path.join(project, 'notes.txt'), 'not media\n');
    fs.writeFileSync(
      path.join(project, 'broken.png'),
      Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(2000, 7)]),
    );
    fs.writeFileSync(path.join(project, 'broken.mp4'), Buffer.alloc(5000, 3));
    runtime = await startRuntimeProcess({
      dataDir: dirs.dataDir,
      projectDirs: dirs.projectDirs,
      env: { HBCODE_FFMPEG: writeCountingFfmpeg(tools), HBCODE_MEDIA_TRANSCODES: '1' },
    });
    client = await runtime.connect();
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    dirs?.remove();
    if (tools) fs.rmSync(tools, { recursive: true, force: true });
  });

  const where = (file: string) => ({ projectDirectory: project, path: file });

  it('FILE-10 a 3000 × 2000 PNG becomes a WebP fitted in the asked box, in chunks of at most 1 MiB, with both sizes', async () => {
    const { bytes, chunks } = await readWholeRendition(client, {
      ...where('photo.png'),
      maxWidth: 780,
      maxHeight: 1688,
    });
    const meta = await sharp(bytes).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
      format: 'webp',
      width: 780,
      height: 520,
    });
    const original = fs.statSync(path.join(project, 'photo.png')).size;
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ mimeType: 'image/webp', size: bytes.length, originalByteCount: original });
      expect(chunk.byteCount).toBeLessThanOrEqual(MEDIA_CHUNK_BYTES);
    }
    expect(bytes.length).toBeLessThan(original / 10);
  });

  it('FILE-10 a TIFF becomes a JPEG when asked, never enlarged past its own size', async () => {
    const { bytes, chunks } = await readWholeRendition(client, {
      ...where('scan.tiff'),
      maxWidth: 4000,
      maxHeight: 4000,
      kind: 'jpeg',
    });
    const meta = await sharp(bytes).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
      format: 'jpeg',
      width: 1200,
      height: 1600,
    });
    expect(chunks[0]!.mimeType).toBe('image/jpeg');
  });

  it('FILE-10 a HEIC photo is decoded by heif-convert and becomes a WebP fitted in the box', async () => {
    const { bytes, chunks } = await readWholeRendition(client, {
      ...where('phone.heic'),
      maxWidth: 600,
      maxHeight: 600,
    });
    const meta = await sharp(bytes).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
      format: 'webp',
      width: 600,
      height: 400,
    });
    expect(chunks[0]).toMatchObject({
      mimeType: 'image/webp',
      originalByteCount: fs.statSync(path.join(project, 'phone.heic')).size,
    });
    // Nothing of the decoded picture is left beside the kept renditions.
    expect(
      fs
        .readdirSync(path.join(dirs.dataDir, 'media-renditions'))
        .filter((name) => !/^[0-9a-f]{32}\.[a-z0-9]+$/.test(name)),
    ).toEqual([]);
  });

  it('FILE-10 a video becomes H.264/AAC MP4 or VP9/Opus WebM at the asked size, read from any offset', async () => {
    const mp4 = await readWholeRendition(client, { ...where('clip.mp4'), maxWidth: 320, maxHeight: 320 });
    const mp4File = path.join(tools, 'clip-rendition.mp4');
    fs.writeFileSync(mp4File, mp4.bytes);
    expect(probeMedia(mp4File)).toMatchObject({
      video: { codec: 'h264', width: 320, height: 240 },
      audio: { codec: 'aac' },
    });
    expect(mp4.chunks[0]!.mimeType).toBe('video/mp4');

    const webm = await readWholeRendition(client, {
      ...where('clip.mp4'),
      maxWidth: 320,
      maxHeight: 320,
      kind: 'webm',
    });
    const webmFile = path.join(tools, 'clip-rendition.webm');
    fs.writeFileSync(webmFile, webm.bytes);
    expect(probeMedia(webmFile)).toMatchObject({
      video: { codec: 'vp9', width: 320, height: 240 },
      audio: { codec: 'opus' },
    });

    // A player's range read starts mid-file.
    const middle = Math.floor(mp4.bytes.length / 2);
    const { result, data } = await client.callBinary('files.readMediaRendition', {
      ...where('clip.mp4'),
      maxWidth: 320,
      maxHeight: 320,
      offset: middle,
    });
    expect(result.offset).toBe(middle);
    expect(Buffer.from(data).equals(mp4.bytes.subarray(middle, middle + result.byteCount))).toBe(true);
  });

  it('FILE-14 a video asked as jpeg or webp is its first frame as a still, fitted in the box, pinned to the same version', async () => {
    const still = await readWholeRendition(client, {
      ...where('clip.mp4'),
      maxWidth: 320,
      maxHeight: 320,
      kind: 'webp',
    });
    const meta = await sharp(still.bytes).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
      format: 'webp',
      width: 320,
      height: 240,
    });
    const video = await client.callBinary('files.readMediaRendition', {
      ...where('clip.mp4'),
      maxWidth: 320,
      maxHeight: 320,
      offset: 0,
    });
    expect(still.chunks[0]).toMatchObject({
      mimeType: 'image/webp',
      contentVersion: video.result.contentVersion,
      originalByteCount: video.result.originalByteCount,
    });
    const jpeg = await readWholeRendition(client, {
      ...where('clip.mp4'),
      maxWidth: 200,
      maxHeight: 200,
      kind: 'jpeg',
    });
    expect((await sharp(jpeg.bytes).metadata()).format).toBe('jpeg');
  });

  it('FILE-11 a rendition is made once per version and kept in the data folder; a second read is the kept file', async () => {
    const ask = { ...where('photo.png'), maxWidth: 400, maxHeight: 400, kind: 'jpeg' as const };
    const first = await readWholeRendition(client, ask);
    const folder = path.join(dirs.dataDir, 'media-renditions');
    const kept = fs
      .readdirSync(folder)
      .map((name) => path.join(folder, name))
      .filter((file) => fs.readFileSync(file).equals(first.bytes));
    expect(kept).toHaveLength(1);
    const before = fs.statSync(kept[0]!);
    const second = await readWholeRendition(client, ask);
    const after = fs.statSync(kept[0]!);
    expect(second.bytes.equals(first.bytes)).toBe(true);
    expect({ ino: after.ino, mtimeMs: after.mtimeMs }).toEqual({ ino: before.ino, mtimeMs: before.mtimeMs });
  });

  it('FILE-11 transcodes run one at a time here (HBCODE_MEDIA_TRANSCODES=1) while the runtime answers other calls', async () => {
    fs.rmSync(path.join(tools, 'counts'), { force: true });
    let settled = 0;
    const renditions = ['a', 'b', 'c'].map((name) =>
      readWholeRendition(client, where(`tone-${name}.wav`)).finally(() => settled++),
    );
    const listing = await client.call('files.list', where(''));
    expect(listing.entries.map((entry) => entry.name)).toContain('photo.png');
    const results = await Promise.all(renditions);
    for (const { chunks } of results) expect(chunks[0]!.mimeType).toBe('audio/mp4');
    const counts = fs.readFileSync(path.join(tools, 'counts'), 'utf8').trim().split('\n').map(Number);
    expect(counts).toEqual([1, 1, 1]);
    expect(settled).toBe(3);
  });

  it('FILE-12 a chunk asked with the pinned version of an original that changed since is refused', async () => {
    const file = path.join(project, 'changing.png');
    await writeTestImage(file, 600, 400, 'png');
    const { result } = await client.callBinary('files.readMediaRendition', { ...where('changing.png'), offset: 0 });
    await writeTestImage(file, 640, 400, 'png');
    const error = await expectRpcError(
      client.callBinary('files.readMediaRendition', {
        ...where('changing.png'),
        offset: 0,
        contentVersion: result.contentVersion,
      }),
      'conflict',
    );
    expect(error.message).toBe(FILE_CHANGED_MESSAGE);
    expect(error.data).toMatchObject({ reason: 'file_changed' });
    const fresh = await client.callBinary('files.readMediaRendition', { ...where('changing.png'), offset: 0 });
    expect(fresh.result.contentVersion).not.toBe(result.contentVersion);
  });

  it('FILE-12 an original that changes while its rendition is made is refused, and nothing is kept for it', async () => {
    const file = path.join(project, 'changing.wav');
    writeTestTone(file, 1);
    fs.writeFileSync(path.join(tools, 'change-during'), file);
    const kept = fs.readdirSync(path.join(dirs.dataDir, 'media-renditions')).length;
    // Its MP4 streams while it is made (FILE-16): the read that meets the change is refused, whichever it is.
    const error = await expectRpcError(readWholeRendition(client, where('changing.wav')), 'conflict');
    expect(error.data).toMatchObject({ reason: 'file_changed' });
    expect(fs.existsSync(path.join(tools, 'change-during'))).toBe(false);
    await waitUntil(
      () => fs.readdirSync(path.join(dirs.dataDir, 'media-renditions')).length === kept,
      'the partial rendition is removed',
    );
  });

  it('FILE-11 a file that is not media, a damaged image and a damaged video each get their own code', async () => {
    await expectRpcError(
      client.callBinary('files.readMediaRendition', { ...where('notes.txt'), offset: 0 }),
      'unsupported_media',
    );
    await expectRpcError(
      client.callBinary('files.readMediaRendition', { ...where('broken.png'), offset: 0 }),
      'corrupt_media',
    );
    await expectRpcError(
      client.callBinary('files.readMediaRendition', { ...where('broken.mp4'), offset: 0 }),
      'corrupt_media',
    );
    await expectRpcError(
      client.callBinary('files.readMediaRendition', { ...where('tone-a.wav'), offset: 0, kind: 'webp' }),
      'invalid_params',
    );
  });

  it('FILE-10 the original goes through the path rules and the secrets policy: a link out of the project and a private key are refused', async () => {
    fs.copyFileSync(path.join(project, 'scan.tiff'), path.join(tools, 'outside.tiff'));
    fs.symlinkSync(path.join(tools, 'outside.tiff'), path.join(project, 'link-out.tiff'));
    fs.writeFileSync(path.join(project, 'key.png'), '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n');
    await expectRpcError(
      client.callBinary('files.readMediaRendition', { ...where('../outside.tiff'), offset: 0 }),
      'invalid_params',
    );
    await expectRpcError(
      client.callBinary('files.readMediaRendition', { ...where('link-out.tiff'), offset: 0 }),
      'not_found',
    );
    await expectRpcError(
      client.callBinary('files.readMediaRendition', { ...where('key.png'), offset: 0 }),
      'secret_file',
    );
  });
});

describe('FILE-11 media limits, configured small', () => {
  let dirs: RuntimeDirs;
  const runtimes: RuntimeProcess[] = [];

  beforeAll(async () => {
    dirs = makeRuntimeDirs(1);
    const project = dirs.projectDirs[0]!;
    writeTestVideo(path.join(project, 'clip.mp4'), { width: 320, height: 240, seconds: 1 });
    await writeTestImage(path.join(project, 'photo.png'), 800, 600, 'png');
    await writeTestHeic(path.join(project, 'photo.heic'), 320, 240);
    // 256 megapixels (just under the default limit) in about 250 KiB: seconds of decoding.
    await writeBlankPng(path.join(project, 'bomb.png'), 16_000, 16_000);
  });
  afterAll(async () => {
    for (const runtime of runtimes) await runtime.stopIfRunning();
    dirs?.remove();
  });

  async function startWith(
    env: NodeJS.ProcessEnv,
    dataDir: string,
  ): Promise<{ runtime: RuntimeProcess; client: RpcClient }> {
    const runtime = await startRuntimeProcess({ dataDir, projectDirs: dirs.projectDirs, env });
    runtimes.push(runtime);
    return { runtime, client: await runtime.connect() };
  }
  const connectWith = async (env: NodeJS.ProcessEnv, dataDir: string) => (await startWith(env, dataDir)).client;
  const ask = (file: string) => ({ projectDirectory: dirs.projectDirs[0]!, path: file, offset: 0 });

  it('FILE-11 an image of more pixels than the limit is too_large before it is decoded, and the next one works', async () => {
    const client = await connectWith({ HBCODE_MEDIA_MAX_PIXELS: '100000000' }, path.join(dirs.dataDir, 'pixels'));
    const error = await expectRpcError(client.callBinary('files.readMediaRendition', ask('bomb.png')), 'too_large');
    expect(error.data).toMatchObject({ reason: 'pixels', maxPixels: 100_000_000 });
    expect(error.message).toContain('more than 100000000 pixels');
    expect((await client.callBinary('files.readMediaRendition', ask('photo.png'))).result.mimeType).toBe('image/webp');
    client.close();
  });

  it('FILE-11 a slow image decodes in a child process: the runtime answers meanwhile, and past the time limit the child is killed with timeout', async () => {
    const { runtime, client } = await startWith({ HBCODE_MEDIA_TIMEOUT_MS: '1000' }, path.join(dirs.dataDir, 'slow'));
    let settled = false;
    const rendition = expectRpcError(client.callBinary('files.readMediaRendition', ask('bomb.png')), 'timeout').finally(
      () => (settled = true),
    );
    const [child] = await waitUntil(
      () =>
        childrenRunning(runtime.child.pid!, 'imageRenderer').length > 0 &&
        childrenRunning(runtime.child.pid!, 'imageRenderer'),
      'the image child starts',
      { intervalMs: 5 },
    );
    // Frozen, the child cannot finish first on a fast machine: only the time limit can end it.
    process.kill(child!, 'SIGSTOP');
    const listing = await client.call('files.list', { projectDirectory: dirs.projectDirs[0]!, path: '' });
    expect(listing.entries.map((entry) => entry.name)).toContain('bomb.png');
    expect(settled).toBe(false);
    expect((await rendition).data).toMatchObject({ timeoutMs: 1000 });
    await waitUntil(
      () => childrenRunning(runtime.child.pid!, 'imageRenderer').length === 0,
      'the killed child is gone',
    );
    client.close();
  });

  it('FILE-11 an image child killed from outside is a clear error, and the next rendition works', async () => {
    const { runtime, client } = await startWith({}, path.join(dirs.dataDir, 'killed'));
    const rendition = expectRpcError(client.callBinary('files.readMediaRendition', ask('bomb.png')), 'unavailable');
    const [child] = await waitUntil(
      () =>
        childrenRunning(runtime.child.pid!, 'imageRenderer').length > 0 &&
        childrenRunning(runtime.child.pid!, 'imageRenderer'),
      'the image child starts',
      { intervalMs: 5 },
    );
    process.kill(child!, 'SIGKILL');
    const error = await rendition;
    expect(error.data).toMatchObject({ reason: 'media_tool_stopped' });
    expect(error.message).toContain('stopped before it finished');
    expect(runtime.running()).toBe(true);
    const next = await client.callBinary('files.readMediaRendition', ask('photo.png'));
    expect(next.result).toMatchObject({
      mimeType: 'image/webp',
      originalByteCount: fs.statSync(path.join(dirs.projectDirs[0]!, 'photo.png')).size,
    });
    client.close();
  });

  it('FILE-11 an original over the source limit, and a rendition over the output limit, are too_large with the limit', async () => {
    const client = await connectWith(
      { HBCODE_MEDIA_SOURCE_MAX_BYTES: '100000', HBCODE_MEDIA_RENDITION_MAX_BYTES: '2000' },
      path.join(dirs.dataDir, 'a'),
    );
    const project = dirs.projectDirs[0]!;
    const source = await expectRpcError(
      client.callBinary('files.readMediaRendition', { projectDirectory: project, path: 'photo.png', offset: 0 }),
      'too_large',
    );
    expect(source.data).toMatchObject({ reason: 'source', maxBytes: 100000 });
    // The MP4 streams while it is made (FILE-16): a read at or after the limit is refused.
    const output = await expectRpcError(
      readWholeRendition(client, { projectDirectory: project, path: 'clip.mp4' }),
      'too_large',
    );
    expect(output.data).toMatchObject({ reason: 'rendition', maxBytes: 2000 });
    client.close();
  });

  it('FILE-11 a transcode past the time limit is stopped with timeout, and nothing is kept', async () => {
    const dataDir = path.join(dirs.dataDir, 'b');
    const client = await connectWith({ HBCODE_MEDIA_TIMEOUT_MS: '1' }, dataDir);
    const error = await expectRpcError(
      client.callBinary('files.readMediaRendition', {
        projectDirectory: dirs.projectDirs[0]!,
        path: 'clip.mp4',
        offset: 0,
      }),
      'timeout',
    );
    expect(error.data).toMatchObject({ timeoutMs: 1 });
    expect(fs.readdirSync(path.join(dataDir, 'media-renditions'))).toEqual([]);
    client.close();
  });

  it('FILE-11 without ffmpeg, video is media_tool_missing; without heif-convert, HEIC is; other images still work', async () => {
    const client = await connectWith(
      {
        HBCODE_FFMPEG: path.join(dirs.dataDir, 'no-such-ffmpeg'),
        HBCODE_HEIF_CONVERT: path.join(dirs.dataDir, 'no-such-heif-convert'),
      },
      path.join(dirs.dataDir, 'c'),
    );
    const project = dirs.projectDirs[0]!;
    const video = await expectRpcError(
      client.callBinary('files.readMediaRendition', { projectDirectory: project, path: 'clip.mp4', offset: 0 }),
      'media_tool_missing',
    );
    expect(video.data).toMatchObject({ program: 'no-such-ffmpeg' });
    const heic = await expectRpcError(
      client.callBinary('files.readMediaRendition', { projectDirectory: project, path: 'photo.heic', offset: 0 }),
      'media_tool_missing',
    );
    expect(heic.message).toContain('heif-convert');
    expect(heic.data).toMatchObject({ program: 'no-such-heif-convert' });
    const image = await client.callBinary('files.readMediaRendition', {
      projectDirectory: project,
      path: 'photo.png',
      offset: 0,
    });
    expect(image.result.mimeType).toBe('image/webp');
    client.close();
  });
});
