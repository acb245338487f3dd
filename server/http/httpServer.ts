import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { AppStatic } from './appStatic';
import { PLACEHOLDER_HTML } from './placeholderPage';
import { servePreviewOrigin } from './previewOriginServer';
import { routeHost, type Origins } from './hostRouting';

export interface HttpHandlers {
  origins: Origins;
  /** The built web app; the placeholder page is served until it exists. */
  app: AppStatic;
  ready: () => boolean;
  /** Upgrades a request on the app origin's /rpc whose Origin header is the app origin. */
  upgradeRpc: (request: http.IncomingMessage, socket: Duplex, head: Buffer) => void;
}

const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function send(res: http.ServerResponse, status: number, headers: Record<string, string>, body = ''): void {
  res.writeHead(status, { ...COMMON_HEADERS, 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * One HTTP server for every origin, routed by Host (ORG-1, RPC-5): the app origin serves the app
 * and /rpc; loopback names redirect to it; preview origins never see the app or the API (ORG-4).
 */
export function createHttpServer(handlers: HttpHandlers): http.Server {
  const { origins } = handlers;
  const server = http.createServer((req, res) => {
    const route = routeHost(req.headers.host, origins);
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (url.pathname === '/healthz' && (route.kind === 'app' || route.kind === 'loopback')) {
      const ready = handlers.ready();
      send(res, ready ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' }, JSON.stringify({ ok: ready }));
      return;
    }
    switch (route.kind) {
      case 'loopback':
        send(res, 308, { location: origins.app.origin + url.pathname + url.search, 'cache-control': 'no-store' });
        return;
      case 'app':
        if (req.method !== 'GET' && req.method !== 'HEAD') {
          send(res, 405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }, 'Method not allowed');
          return;
        }
        if (handlers.app.built) {
          handlers.app.serve(req, res, url.pathname, COMMON_HEADERS);
          return;
        }
        send(
          res,
          200,
          {
            'content-type': 'text/html; charset=utf-8',
            'cache-control': 'no-cache',
            'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
          },
          PLACEHOLDER_HTML,
        );
        return;
      case 'preview':
        servePreviewOrigin(req, res, url.pathname, handlers.app.outDir, origins.app.origin, send);
        return;
      default:
        send(res, 421, { 'content-type': 'text/plain', 'cache-control': 'no-store' }, 'Unknown host');
    }
  });

  server.on('upgrade', (req, socket, head) => {
    const route = routeHost(req.headers.host, origins);
    const path = (req.url ?? '').split('?')[0];
    if (route.kind !== 'app' || path !== '/rpc') return refuseUpgrade(socket, 404, 'Not Found');
    if (req.headers.origin !== origins.app.origin) return refuseUpgrade(socket, 403, 'Forbidden');
    handlers.upgradeRpc(req, socket, head);
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
  return server;
}
