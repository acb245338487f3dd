import type http from 'node:http';
import type { Duplex } from 'node:stream';

/** Where the printed `http://localhost:PORT` leads (ORG-5). */
export interface LoopbackEntry {
  /** The app on its name, e.g. http://hbcode.localhost:8787. */
  appOrigin: string;
  /** The app where no name is needed, e.g. http://127.0.0.1:8787. */
  fallbackOrigin: string;
  /** The server that answers for the fallback origin (its app, its /rpc). */
  fallbackServer: http.Server;
  /** How long the probe waits for the name before it stays without it. */
  probeMs: number;
}

export const NAME_PROBE_SCRIPT_PATH = '/.hbcode/name-probe.js';

/**
 * NOTE: `fetch` in `no-cors` mode settles without reading anything: it resolves when the name
 * answered at all and rejects when it could not be resolved or reached, which is all the probe asks.
 */
const NAME_PROBE_SCRIPT = `(() => {
  const meta = (name) => document.querySelector('meta[name="' + name + '"]').content;
  const rest = location.pathname + location.search + location.hash;
  let done = false;
  const go = (origin) => {
    if (done) return;
    done = true;
    location.replace(origin + rest);
  };
  setTimeout(() => go(meta('hbcode-fallback')), Number(meta('hbcode-probe-ms')));
  fetch(meta('hbcode-app') + '/healthz', { mode: 'no-cors', cache: 'no-store', credentials: 'omit' }).then(
    () => go(meta('hbcode-app')),
    () => go(meta('hbcode-fallback')),
  );
})();
`;

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

function probePage(entry: LoopbackEntry): string {
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">',
    '<title>HB Code</title>',
    `<meta name="hbcode-app" content="${escapeAttribute(entry.appOrigin)}">`,
    `<meta name="hbcode-fallback" content="${escapeAttribute(entry.fallbackOrigin)}">`,
    `<meta name="hbcode-probe-ms" content="${entry.probeMs}">`,
    `<script src="${NAME_PROBE_SCRIPT_PATH}"></script>`,
    '</head><body style="font-family: system-ui, sans-serif; padding: 1rem">Opening HB Code…</body></html>',
  ].join('');
}

type Send = (res: http.ServerResponse, status: number, headers: Record<string, string>, body?: string) => void;

/**
 * ORG-5: `localhost` answers a page that asks the browser whether it can reach the app's name
 * (Safari cannot resolve `*.localhost`, WebKit bug 160504) and goes there, or else to the fallback
 * origin, keeping path, query and fragment (a pairing link's code). `127.0.0.1` is the fallback
 * origin itself: its own server answers it.
 */
export function createLoopbackEntry(entry: LoopbackEntry) {
  const fallbackHost = new URL(entry.fallbackOrigin).host;
  const isFallback = (req: http.IncomingMessage) => (req.headers.host ?? '').toLowerCase() === fallbackHost;
  const contentSecurityPolicy = [
    "default-src 'none'",
    "script-src 'self'",
    `connect-src ${entry.appOrigin}`,
    "style-src 'unsafe-inline'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    request(req: http.IncomingMessage, res: http.ServerResponse, url: URL, send: Send): void {
      if (isFallback(req)) {
        entry.fallbackServer.emit('request', req, res);
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        send(
          res,
          405,
          { allow: 'GET, HEAD', 'content-type': 'text/plain', 'cache-control': 'no-store' },
          'Method not allowed',
        );
        return;
      }
      if (url.pathname === NAME_PROBE_SCRIPT_PATH) {
        send(
          res,
          200,
          { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' },
          NAME_PROBE_SCRIPT,
        );
        return;
      }
      send(
        res,
        200,
        {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'content-security-policy': contentSecurityPolicy,
        },
        probePage(entry),
      );
    },
    /** The fallback origin's `/rpc`; true when it took the request. */
    upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean {
      if (!isFallback(req)) return false;
      entry.fallbackServer.emit('upgrade', req, socket, head);
      return true;
    },
  };
}

export type LoopbackEntryHandler = ReturnType<typeof createLoopbackEntry>;
