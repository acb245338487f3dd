import http from 'node:http';
import type { Duplex } from 'node:stream';
import { answerAndClose } from '../../lib/nodeHttp/answerAndClose';
import type { AppStatic } from './appStatic';
import { CLEAR_COOKIES_HEADERS, cookieClearingHeaders } from './cookies';
import { ConnectionGovernor } from '../../lib/nodeHttp/connectionGovernor';
import { connectionGovernorOptions, httpServerOptions, type HttpLimits } from '../../lib/nodeHttp/httpLimits';
import { PLACEHOLDER_HTML } from './placeholderPage';
import { servePreviewOrigin } from './previewOriginServer';
import { routeHost, type Origins } from './hostRouting';
import type { LoopbackEntryHandler } from './loopbackNames';

export interface HttpHandlers {
  origins: Origins;
  /** The built web app; the placeholder page is served until it exists. */
  app: AppStatic;
  ready: () => boolean;
  /** Upgrades a request on the app origin's /rpc whose Origin header is the app origin; without it /rpc is 404. */
  upgradeRpc?: (request: http.IncomingMessage, socket: Duplex, head: Buffer) => void;
  limits: HttpLimits;
  /** Chunk bytes over HTTP on the app origin (server/http/byteRoutes.ts); true when it answered. */
  bytes?: (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => boolean;
  /** ORG-5: what loopback names answer instead of the redirect to the app origin. */
  loopback?: LoopbackEntryHandler;
}

const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function send(res: http.ServerResponse, status: number, headers: Record<string, string>, body = ''): void {
  res.writeHead(status, {
    ...COMMON_HEADERS,
    ...cookieClearingHeaders(res.req),
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

export function refuseUpgrade(req: http.IncomingMessage, socket: Duplex, status: number, reason: string): void {
  answerAndClose(socket, status, reason, cookieClearingHeaders(req));
}

/** What a request that never became one is answered (SEC-9): a slow head is 408, an oversize one 431. */
function clientErrorStatus(error: NodeJS.ErrnoException): [number, string] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'Request Timeout'];
  if (error.code === 'HPE_HEADER_OVERFLOW') return [431, 'Request Header Fields Too Large'];
  return [400, 'Bad Request'];
}

/**
 * One HTTP server for every origin, routed by Host (ORG-1, RPC-5): the app origin serves the app
 * and /rpc; loopback names redirect to it (or probe for it, ORG-5); preview origins never see the app or the API (ORG-4).
 */
export function createHttpServer(handlers: HttpHandlers): http.Server {
  const { origins } = handlers;
  const server = http.createServer(httpServerOptions(handlers.limits), (req, res) => {
    const route = routeHost(req.headers.host, origins);
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (url.pathname === '/healthz' && (route.kind === 'app' || route.kind === 'loopback')) {
      const ready = handlers.ready();
      send(
        res,
        ready ? 200 : 503,
        { 'content-type': 'application/json', 'cache-control': 'no-store' },
        JSON.stringify({ ok: ready }),
      );
      return;
    }
    switch (route.kind) {
      case 'loopback':
        if (handlers.loopback) {
          handlers.loopback.request(req, res, url, send);
          return;
        }
        send(res, 308, { location: origins.app.origin + url.pathname + url.search, 'cache-control': 'no-store' });
        return;
      case 'app':
        if (handlers.bytes?.(req, res, url)) return;
        if (req.method !== 'GET' && req.method !== 'HEAD') {
          send(res, 405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }, 'Method not allowed');
          return;
        }
        if (handlers.app.built) {
          handlers.app.serve(req, res, url.pathname, { ...COMMON_HEADERS, ...cookieClearingHeaders(req) });
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
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (route.kind === 'loopback' && handlers.loopback?.upgrade(req, socket, head)) return;
    if (route.kind !== 'app' || path !== '/rpc' || !handlers.upgradeRpc)
      return refuseUpgrade(req, socket, 404, 'Not Found');
    if (req.headers.origin !== origins.app.origin) return refuseUpgrade(req, socket, 403, 'Forbidden');
    handlers.upgradeRpc(req, socket, head);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // A response already under way on this socket cannot be followed by another status line.
    const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
    if (!socket.writable || error.code === 'ECONNRESET' || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    const [status, reason] = clientErrorStatus(error);
    // An oversize head is most likely cookies set on the app's domain: whichever origin it was
    // for, dropping them is what lets the browser's next request through (SEC-8).
    answerAndClose(socket, status, reason, status === 431 ? CLEAR_COOKIES_HEADERS : {});
  });
  // NOTE: not server.maxConnections, which refuses the newest connection: under a flood of
  // reconnecting slow clients that is nearly always a real one (SEC-9).
  new ConnectionGovernor(server, connectionGovernorOptions(handlers.limits), (socket, status, reason) =>
    answerAndClose(socket, status, reason),
  );
  return server;
}
