import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILE_CHUNK_READ_BYTES, readProjectFileChunks } from '../../../lib/client/fileChunks';
import { FileChangedError } from '../../../lib/client/verifiedChunks';
import type { RpcClient } from '../../../lib/client/rpcClient';
import {
  FILE_CHANGED_MESSAGE,
  FILE_CHUNK_BYTES,
  MAX_TEXT_CONTENT_BYTES,
  TEXT_CONTENT_TOO_LARGE_MESSAGE,
} from '../../../lib/protocol/files';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { writeSeededFile } from '../../fixtures/seededFile';
import { expectRpcError } from '../../fixtures/rpcErrors';
import { readThroughVerifiedChunks } from '../../fixtures/verifiedRead';

/** Sixty-four of the reader's chunks, four of the runtime's largest: the same path a gigabyte takes. */
const VERIFIED_READ_BYTES = 64 * FILE_CHUNK_READ_BYTES;

describe('FILE-1 and FILE-2 reads over a real WebSocket', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let project: string;

  beforeAll(async () => {
    dirs = makeRuntimeDirs(1);
    project = dirs.projectDirs[0]!;
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    client = await runtime.connect();
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  it('FILE-1 files.readContent answers text, size, version, time and type; encoding is ignored', async () => {
    fs.writeFileSync(path.join(project, 'notes.md'), '# Héllo\n');
    const first = await client.call('files.readContent', {
      projectDirectory: project,
      path: 'notes.md',
      encoding: 'latin1',
    });
    expect(first).toEqual({
      text: '# Héllo\n',
      byteLength: 9,
      contentVersion: expect.stringMatching(/^[0-9a-f]{32}$/),
      modifiedAt: expect.any(Number),
      mimeType: 'text/markdown',
    });
    fs.writeFileSync(path.join(project, 'notes.md'), '# Hello, again\n');
    const second = await client.call('files.readContent', { projectDirectory: project, path: 'notes.md' });
    expect(second.text).toBe('# Hello, again\n');
    expect(second.contentVersion).not.toBe(first.contentVersion);
  });

  it('FILE-1 files.readContent reads exactly 2 MiB and refuses one byte more with "Text preview is too large"', async () => {
    fs.writeFileSync(path.join(project, 'limit.txt'), 'a'.repeat(MAX_TEXT_CONTENT_BYTES));
    fs.writeFileSync(path.join(project, 'over.txt'), 'a'.repeat(MAX_TEXT_CONTENT_BYTES + 1));
    expect((await client.call('files.readContent', { projectDirectory: project, path: 'limit.txt' })).byteLength).toBe(
      MAX_TEXT_CONTENT_BYTES,
    );
    const error = await expectRpcError(
      client.call('files.readContent', { projectDirectory: project, path: 'over.txt' }),
      'too_large',
    );
    expect(error.message).toBe(TEXT_CONTENT_TOO_LARGE_MESSAGE);
  });

  it('FILE-2 files.readBinary answers a chunk with its SHA-256, in base64 and as a binary frame alike', async () => {
    const bytes = crypto.randomBytes(1000);
    fs.writeFileSync(path.join(project, 'small.png'), bytes);
    const where = { projectDirectory: project, path: 'small.png' };
    const json = await client.call('files.readBinary', { ...where, offset: 10 });
    expect(json).toMatchObject({ offset: 10, nextOffset: null, byteCount: 990, size: 1000, mimeType: 'image/png' });
    expect(Buffer.from(json.dataBase64, 'base64').equals(bytes.subarray(10))).toBe(true);
    expect(json.sha256).toBe(crypto.createHash('sha256').update(bytes.subarray(10)).digest('hex'));
    const binary = await client.callBinary('files.readBinary', { ...where, offset: 10 });
    expect(Buffer.from(binary.data).equals(bytes.subarray(10))).toBe(true);
    expect({ ...binary.result, dataBase64: json.dataBase64 }).toEqual(json);
    expect((await client.call('files.readBinary', { ...where, offset: 1000 })).byteCount).toBe(0);
    await expectRpcError(client.call('files.readBinary', { ...where, offset: 1001 }), 'invalid_params');
    await expectRpcError(
      client.call('files.readBinary', { projectDirectory: project, path: '', offset: 0 }),
      'invalid_params',
    );
  });

  it('FILE-2 files.readBinary answers at most `length` bytes when asked for less than 4 MiB, and refuses more', async () => {
    const bytes = crypto.randomBytes(FILE_CHUNK_BYTES + 100);
    fs.writeFileSync(path.join(project, 'medium.bin'), bytes);
    const where = { projectDirectory: project, path: 'medium.bin' };
    const piece = await client.callBinary('files.readBinary', { ...where, offset: 5, length: 1000 });
    expect(piece.result).toMatchObject({ offset: 5, nextOffset: 1005, byteCount: 1000, size: FILE_CHUNK_BYTES + 100 });
    expect(Buffer.from(piece.data).equals(bytes.subarray(5, 1005))).toBe(true);
    expect(piece.result.sha256).toBe(crypto.createHash('sha256').update(bytes.subarray(5, 1005)).digest('hex'));
    const whole = await client.callBinary('files.readBinary', { ...where, offset: 0 });
    expect(whole.result.byteCount).toBe(FILE_CHUNK_BYTES);
    await expectRpcError(
      client.call('files.readBinary', { ...where, offset: 0, length: FILE_CHUNK_BYTES + 1 }),
      'invalid_params',
    );
  });

  it('FILE-2 a file of many chunks arrives byte-identical through the verified chunk reader (1 GiB: npm run bench file2)', async () => {
    const file = path.join(project, 'huge.bin');
    const expected = writeSeededFile(file, VERIFIED_READ_BYTES, 7);
    const read = await readThroughVerifiedChunks(client, { projectDirectory: project, path: 'huge.bin' });
    fs.rmSync(file);
    expect(read.largestChunk).toBeLessThanOrEqual(FILE_CHUNK_BYTES);
    expect(read.bytes).toBe(VERIFIED_READ_BYTES);
    // The app's reader asks for 256 KiB chunks (the `length` addition).
    expect(read.chunks).toBe(VERIFIED_READ_BYTES / FILE_CHUNK_READ_BYTES);
    expect(read.sha256).toBe(expected);
  });

  it('FILE-2 a file rewritten mid-transfer is discarded with "File changed while loading. Open it again."', async () => {
    const file = path.join(project, 'moving.bin');
    writeSeededFile(file, 3 * FILE_CHUNK_BYTES + 5, 11);
    const seen: number[] = [];
    const read = async () => {
      for await (const chunk of readProjectFileChunks(client, { projectDirectory: project, path: 'moving.bin' })) {
        seen.push(chunk.header.offset);
        // Rewritten after the first chunk: same size, new content and time.
        if (seen.length === 1) {
          writeSeededFile(file, 3 * FILE_CHUNK_BYTES + 5, 12);
          fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
        }
      }
    };
    const error = await read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileChangedError);
    expect((error as Error).message).toBe(FILE_CHANGED_MESSAGE);
    expect(seen).toEqual([0]);
  });
});
