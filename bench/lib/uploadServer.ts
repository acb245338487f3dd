import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { listenOnLoopback, type ReferenceServer } from './referenceServers';

/**
 * The plain upload the attachment benchmark compares with: a minimal Node server that writes a
 * POST body to a file as it arrives and syncs it once at the end before answering, so both sides
 * end with the bytes durable on disk. Cross-origin, so it answers CORS.
 */
export function startUploadServer(dir: string): Promise<ReferenceServer & { lastBytes(): number }> {
  let lastBytes = 0;
  let count = 0;
  const server = http.createServer((req, res) => {
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-allow-headers': '*',
      'access-control-allow-methods': 'POST',
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors).end();
      return;
    }
    const file = path.join(dir, `upload-${count++}.bin`);
    const out = fs.createWriteStream(file, { mode: 0o600 });
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.pipe(out);
    out.on('finish', () => {
      const fd = fs.openSync(file, 'r');
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fs.rmSync(file);
      lastBytes = bytes;
      res.writeHead(200, { ...cors, 'content-type': 'text/plain' }).end(String(bytes));
    });
  });
  return listenOnLoopback(server).then((reference) => ({ ...reference, lastBytes: () => lastBytes }));
}
