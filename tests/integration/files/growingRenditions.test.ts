import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { MediaChunk } from '../../../lib/protocol/files';
import { probeMedia, readWholeRendition, writeTestVideo } from '../../fixtures/mediaFiles';
import { expectRpcError } from '../../fixtures/rpcErrors';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { waitUntil } from '../../fixtures/waitUntil';

// FILE-16 with real ffmpeg over a real WebSocket: an MP4 rendition is read while it is made.

describe('FILE-16 a video rendition streams while it is made', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let project: string;
  const partFiles = () =>
    fs.readdirSync(path.join(dirs.dataDir, 'media-renditions')).filter((name) => name.endsWith('.part'));

  beforeAll(async () => {
    dirs = makeRuntimeDirs(1);
    project = dirs.projectDirs[0]!;
    // Long enough that its transcode takes seconds: reads come back before it is done.
    writeTestVideo(path.join(project, 'long.mp4'), { width: 1280, height: 720, seconds: 30 });
    writeTestVideo(path.join(project, 'changing.mp4'), { width: 1280, height: 720, seconds: 30 });
    fs.writeFileSync(path.join(project, 'broken.mp4'), Buffer.alloc(5000, 3));
    runtime = await startRuntimeProcess({
      dataDir: dirs.dataDir,
      projectDirs: dirs.projectDirs,
      env: { HBCODE_MEDIA_GROWING_WAIT_MS: '2000' },
    });
    client = await runtime.connect();
  }, 120_000);
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  const ask = (file: string) => ({
    projectDirectory: project,
    path: file,
    maxWidth: 1280,
    maxHeight: 720,
    kind: 'mp4' as const,
  });

  it('FILE-16 reads answer the bytes made so far, then the same bytes as the kept complete file, a valid fragmented MP4', async () => {
    const growing = await readWholeRendition(client, ask('long.mp4'));
    const first = growing.chunks[0]!;
    expect(first).toMatchObject({ offset: 0, complete: false, totalBytes: null, mimeType: 'video/mp4' });
    expect(first.nextOffset).toBe(first.byteCount);
    const during = growing.chunks.filter((chunk) => !chunk.complete);
    for (const chunk of during) expect(chunk.nextOffset).toBe(chunk.offset + chunk.byteCount);
    const last = growing.chunks.at(-1)!;
    expect(last).toMatchObject({
      complete: true,
      totalBytes: growing.bytes.length,
      size: growing.bytes.length,
      nextOffset: null,
    });

    // Asked again: kept, complete from the first chunk, byte for byte what streamed.
    const again = await readWholeRendition(client, ask('long.mp4'));
    expect(
      again.chunks.every(
        (chunk: Omit<MediaChunk, 'dataBase64'>) => chunk.complete && chunk.totalBytes === again.bytes.length,
      ),
    ).toBe(true);
    expect(again.bytes.equals(growing.bytes)).toBe(true);
    const file = path.join(dirs.dataDir, 'streamed.mp4');
    fs.writeFileSync(file, growing.bytes);
    expect(probeMedia(file)).toMatchObject({
      video: { codec: 'h264', width: 1280, height: 720 },
      audio: { codec: 'aac' },
    });
    expect(partFiles()).toEqual([]);
  }, 120_000);

  it('FILE-16 FILE-12 an original changed mid-transcode fails the reads and leaves no part file; a damaged one fails at once', async () => {
    const first: { result: MediaChunk } = await client.callBinary('files.readMediaRendition', {
      ...ask('changing.mp4'),
      offset: 0,
    });
    expect(first.result.complete).toBe(false);
    fs.appendFileSync(path.join(project, 'changing.mp4'), 'more');
    await expectRpcError(
      client.callBinary('files.readMediaRendition', {
        ...ask('changing.mp4'),
        offset: first.result.nextOffset!,
        contentVersion: first.result.contentVersion,
      }),
      'conflict',
    );
    await waitUntil(() => partFiles().length === 0, 'the partial rendition is removed', 60_000);
    await expectRpcError(
      client.callBinary('files.readMediaRendition', { ...ask('broken.mp4'), offset: 0 }),
      'corrupt_media',
    );
    expect(partFiles()).toEqual([]);
  }, 120_000);
});
