import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { listenOnLoopback, type ReferenceServer } from './referenceServers';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.png': 'image/png',
};

/**
 * The plain static HTTP server PERF-7 compares the preview with: files of one folder, read whole
 * per request, with the same `no-store` the preview answers carry, so neither side is cached.
 */
export function startStaticSiteServer(root: string): Promise<ReferenceServer> {
  const server = http.createServer((req, res) => {
    const file = path.join(root, path.normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
    if (!file.startsWith(root + path.sep)) return void res.writeHead(404).end();
    fs.readFile(file, (error, body) => {
      if (error) return void res.writeHead(404).end();
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'content-length': body.length,
        'cache-control': 'no-store',
      });
      res.end(body);
    });
  });
  return listenOnLoopback(server);
}
