import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../server/runtime/paths';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

const OUT = path.join(REPO_ROOT, 'out');
/** Text formats worth compressing; images and fonts are compressed already. */
const TEXT = new Set(['.html', '.js', '.css', '.json', '.webmanifest', '.svg']);

function servedFiles(dir = OUT, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.')) return [];
    const rel = `${prefix}/${entry.name}`;
    return entry.isDirectory() ? servedFiles(path.join(dir, entry.name), rel) : [rel];
  });
}

function getBytes(
  port: number,
  urlPath: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: urlPath,
        headers: { host: `hbcode.localhost:${port}`, ...headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function decode(coding: string | undefined, body: Buffer): Buffer {
  if (coding === 'br') return zlib.brotliDecompressSync(body);
  if (coding === 'gzip') return zlib.gunzipSync(body);
  if (coding === undefined) return body;
  throw new Error(`unexpected content-encoding ${coding}`);
}

describe('UX-5 static files are served compressed and decompress to the same bytes', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  const files = servedFiles();

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
  });
  afterAll(async () => {
    await runtime?.stop();
    dirs?.remove();
  });

  it('the build has text files to serve', () => {
    expect(files.filter((f) => TEXT.has(path.extname(f))).length).toBeGreaterThan(10);
  });

  it.each([
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br, zstd', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0.5, br;q=0.4', 'gzip'],
    ['*', 'br'],
  ])(
    'every text file larger than 1 KiB asked with "%s" comes as %s, byte-identical after decoding',
    async (accept, expected) => {
      let checked = 0;
      for (const rel of files) {
        const plain = fs.readFileSync(path.join(OUT, rel));
        const answer = await getBytes(runtime.port, rel, { 'accept-encoding': accept });
        expect(answer.status, rel).toBe(200);
        expect(decode(answer.headers['content-encoding'], answer.body).equals(plain), rel).toBe(true);
        expect(Number(answer.headers['content-length']), rel).toBe(answer.body.length);
        if (!TEXT.has(path.extname(rel)) || plain.length <= 1024) continue;
        expect(answer.headers['content-encoding'], rel).toBe(expected);
        expect(answer.body.length, rel).toBeLessThan(plain.length);
        expect(answer.headers.vary, rel).toBe('Accept-Encoding');
        checked += 1;
      }
      expect(checked).toBeGreaterThan(10);
    },
  );

  it('without Accept-Encoding, with identity only, or with every coding refused, the bytes come as stored and caches are told they vary', async () => {
    const rel = files.find((f) => f.endsWith('.js') && fs.statSync(path.join(OUT, f)).size > 10_000)!;
    const plain = fs.readFileSync(path.join(OUT, rel));
    for (const headers of [
      {} as Record<string, string>,
      { 'accept-encoding': 'identity' },
      { 'accept-encoding': 'br;q=0, gzip;q=0' },
      { 'accept-encoding': '*;q=0' },
    ]) {
      const answer = await getBytes(runtime.port, rel, headers);
      expect(answer.headers['content-encoding'], JSON.stringify(headers)).toBeUndefined();
      expect(answer.body.equals(plain)).toBe(true);
      expect(answer.headers.vary).toBe('Accept-Encoding');
    }
  });

  it('the clean address of a page and the 404 page are compressed too', async () => {
    const index = await getBytes(runtime.port, '/', { 'accept-encoding': 'br' });
    expect(index.headers['content-encoding']).toBe('br');
    expect(decode('br', index.body).equals(fs.readFileSync(path.join(OUT, 'index.html')))).toBe(true);
    expect(index.headers['content-security-policy']).toContain("script-src 'self'");
    const missing = await getBytes(runtime.port, '/no-such-page', { 'accept-encoding': 'gzip' });
    expect(missing.status).toBe(404);
    expect(
      decode(missing.headers['content-encoding'], missing.body).equals(fs.readFileSync(path.join(OUT, '404.html'))),
    ).toBe(true);
  });

  it("SEC-3 HL-1 only the highlight worker's own CSP lets it compile WebAssembly; the page and the other workers may not", async () => {
    const policy = async (rel: string) =>
      (await getBytes(runtime.port, rel, {})).headers['content-security-policy'] ?? '';
    const highlight = await policy('/workers/highlight.worker.js');
    expect(highlight).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(highlight).not.toMatch(/'unsafe-eval'|'unsafe-inline'|\*/);
    expect(await policy('/workers/markdown.worker.js')).toMatch(/script-src 'self'(;|$)/);
    expect(await policy('/')).not.toContain('wasm-unsafe-eval');
  });

  it('the compressed copies are never served by their own path', async () => {
    const copy = files.find((f) => f.endsWith('.js'))!;
    const answer = await getBytes(runtime.port, `/.compressed${copy}.br`, {});
    expect(answer.status).toBe(404);
  });
});
