import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppStatic } from '../../../server/http/appStatic';

function get(
  port: number,
  urlPath: string,
  acceptEncoding: string,
): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: urlPath, headers: { 'accept-encoding': acceptEncoding }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('UX-5 a compressed copy never outlives its file', () => {
  let outDir: string;
  let server: http.Server;
  let port: number;
  const script = 'console.log("built");\n'.repeat(200);

  beforeAll(async () => {
    outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-static-'));
    fs.writeFileSync(path.join(outDir, 'index.html'), '<!doctype html><title>t</title>');
    fs.writeFileSync(path.join(outDir, 'app.js'), script);
    fs.mkdirSync(path.join(outDir, '.compressed'));
    fs.writeFileSync(path.join(outDir, '.compressed', 'app.js.br'), zlib.brotliCompressSync(script));
    const files = new AppStatic(outDir);
    server = http.createServer((req, res) => files.serve(req, res, new URL(req.url ?? '/', 'http://x').pathname, {}));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    fs.rmSync(outDir, { recursive: true, force: true });
  });

  it('the build copy is served while it is current', async () => {
    const answer = await get(port, '/app.js', 'br');
    expect(answer.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(answer.body).toString()).toBe(script);
  });

  it('a file changed after the build is served as it is now', async () => {
    const file = path.join(outDir, 'app.js');
    const later = new Date(fs.statSync(path.join(outDir, '.compressed', 'app.js.br')).mtime.getTime() + 5000);
    fs.appendFileSync(file, '// changed after the build\n');
    fs.utimesSync(file, later, later);
    const answer = await get(port, '/app.js', 'br, gzip');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.toString()).toBe(`${script}// changed after the build\n`);
  });
});
