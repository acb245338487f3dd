import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as FileCache from '../../lib/client/fileCache';
import type * as VerifiedChunks from '../../lib/client/verifiedChunks';
import { REPO_ROOT } from '../../server/runtime/paths';
import { connectChromium } from '../fixtures/sharedChromium';

// PWA-3 for files, in real Chromium: the real module, bundled for a routed origin with an
// IndexedDB of its own.
type Modules = typeof FileCache & Pick<typeof VerifiedChunks, 'readVerifiedChunks' | 'sha256Hex'>;

describe('PWA-3 file chunk cache in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await connectChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('PWA-3 a file read whole is found again and re-verified; the cache stays within its bound, least recently used first, and drops other versions', async () => {
    const bundle = await build({
      stdin: {
        contents:
          "export * from './lib/client/fileCache'; export { readVerifiedChunks, sha256Hex } from './lib/client/verifiedChunks';",
        resolveDir: REPO_ROOT,
        loader: 'ts',
      },
      bundle: true,
      write: false,
      format: 'iife',
      globalName: 'hbFileCache',
      platform: 'browser',
      target: 'es2022',
      logLevel: 'silent',
    });
    const context = await browser.newContext();
    await context.route('http://file-cache-test.localhost/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>file cache</title>' }),
    );
    const page = await context.newPage();
    await page.goto('http://file-cache-test.localhost/');
    await page.addScriptTag({ content: bundle.outputFiles[0]!.text });

    const result = await page.evaluate(async () => {
      const m = (globalThis as unknown as { hbFileCache: Modules }).hbFileCache;
      const a = { projectDirectory: '/project', path: 'a.bin' };
      const b = { projectDirectory: '/project', path: 'b.bin' };
      const bound = 4000;
      const file = Uint8Array.from({ length: 2500 }, (_, i) => i % 251);
      const chunk = async (version: string, bytes: Uint8Array, offset: number, size: number) => {
        const data = bytes.subarray(offset, Math.min(size, offset + 1000));
        const end = offset + data.length;
        return {
          header: {
            offset,
            nextOffset: end >= size ? null : end,
            byteCount: data.length,
            size,
            contentVersion: version,
            modifiedAt: 1,
            mimeType: 'application/octet-stream',
            sha256: await m.sha256Hex(data),
          },
          data,
        };
      };
      const readWhole = async (ref: typeof a, version: string) => {
        const parts: number[] = [];
        for await (const c of m.readVerifiedChunks(m.cachedChunkReader(ref, version))) parts.push(...c.data);
        return parts;
      };
      for (const offset of [0, 1000, 2000]) await m.saveFileChunk(a, await chunk('v1', file, offset, 2500), bound);
      const foundV1 = (await m.findCachedFile(a))?.contentVersion;
      const roundTrip = (await readWhole(a, 'v1')).every((byte, i) => byte === file[i]);
      await m.saveFileChunk(a, await chunk('v2', file, 0, 2500), bound); // a newer version, not whole yet
      const stillV1 = (await m.findCachedFile(a))?.contentVersion;
      const bytesBefore = await m.fileCacheBytes();
      await m.saveFileChunk(b, await chunk('w1', new Uint8Array(1000).fill(7), 0, 1000), bound); // over the bound: v1's first chunk goes
      const afterEviction = await m.findCachedFile(a);
      const otherFile = (await m.findCachedFile(b))?.contentVersion;
      const bytesAfter = await m.fileCacheBytes();
      await m.forgetOtherVersions(a, 'v2');
      return {
        foundV1,
        roundTrip,
        stillV1,
        bytesBefore,
        afterEviction,
        otherFile,
        bytesAfter,
        bytesAtEnd: await m.fileCacheBytes(),
        missingV1: await m
          .cachedChunkReader(
            a,
            'v1',
          )(1000)
          .then(
            () => 'found',
            (e: Error) => e.message,
          ),
      };
    });
    expect(result).toEqual({
      foundV1: 'v1',
      roundTrip: true,
      stillV1: 'v1',
      bytesBefore: 3500,
      afterEviction: null,
      otherFile: 'w1',
      bytesAfter: 3500, // 3500 + 1000 over 4000: v1's least recently used chunk (1000) went
      bytesAtEnd: 2000,
      missingV1: expect.stringContaining('missing'),
    });
    await context.close();
  });
});
