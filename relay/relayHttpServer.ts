import http from 'node:http';
import type { Duplex } from 'node:stream';
import { answerAndClose } from '../lib/nodeHttp/answerAndClose';
import { ConnectionGovernor } from '../lib/nodeHttp/connectionGovernor';
import { connectionGovernorOptions, httpServerOptions, type HttpLimits } from '../lib/nodeHttp/httpLimits';

/**
 * RLY-1: what a browser may get from the relay's own origin: a page with no script, no style, no
 * image, no form and no frame, that nothing can run in or embed, and that tells the browser to drop
 * whatever this origin stored (a device that used the retired relay-served app still holds its
 * service worker and data here). The app, its worker, pairing and previews come only from the
 * desktop, on its own name, through TLS it ends (RLY-6).
 */
export const RELAY_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; sandbox",
  'clear-site-data': '"cache", "storage"',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

/** The page; `hostname` comes from `--public-url` (a parsed URL's host name: no markup in it). */
export const relayPageHtml = (hostname: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>HB Code relay</title></head>
<body><h1>HB Code relay</h1>
<p>This relay passes encrypted connections to desktops; it serves no app itself.</p>
<p>To use HB Code on this device, open the pairing link your desktop shows, or scan its QR code. It looks like <code>https://&lt;desktop id&gt;.${hostname}/pair#code=…</code> and goes to your desktop through this relay, encrypted end to end.</p>
</body></html>
`;

export interface RelayHttpHandlers {
  /** The relay's public host name (the `HOST` in the page). */
  hostname: string;
  ready: () => boolean;
  /** WebSocket endpoints (the desktop link): true when it took the request. */
  upgrade: (request: http.IncomingMessage, socket: Duplex, head: Buffer, path: string) => boolean;
  limits: HttpLimits;
}

function send(res: http.ServerResponse, status: number, headers: Readonly<Record<string, string>>, body: string): void {
  res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/**
 * The relay node's plain HTTP side (RLY-1): `/healthz`, the static page for every other GET or
 * HEAD, and the desktop link's WebSocket; nothing else, whatever the Host header names.
 */
export function createRelayHttpServer(handlers: RelayHttpHandlers): http.Server {
  const page = relayPageHtml(handlers.hostname);
  const server = http.createServer(httpServerOptions(handlers.limits), (req, res) => {
    const url = new URL(req.url ?? '/', 'http://relay');
    if (url.pathname === '/healthz') {
      const ready = handlers.ready();
      send(
        res,
        ready ? 200 : 503,
        { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
        JSON.stringify({ ok: ready, relay: true }),
      );
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(
        res,
        405,
        { ...RELAY_PAGE_HEADERS, 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' },
        'Method not allowed',
      );
      return;
    }
    // NOTE: 404 for any path but `/`, with the same page and headers: a browser's update check of
    // the retired app's `/sw.js` gets no script and is told to clear what it kept.
    send(res, url.pathname === '/' ? 200 : 404, RELAY_PAGE_HEADERS, page);
  });
  server.on('upgrade', (req, socket, head) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (!handlers.upgrade(req, socket, head, path)) answerAndClose(socket, 404, 'Not Found');
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  new ConnectionGovernor(server, connectionGovernorOptions(handlers.limits), (socket, status, reason) =>
    answerAndClose(socket, status, reason),
  );
  return server;
}
