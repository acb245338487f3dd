import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { AppStatic } from './http/appStatic';
import { createByteRoutes } from './http/byteRoutes';
import type { Origins } from './http/hostRouting';
import type { HttpLimits } from '../lib/nodeHttp/httpLimits';
import { createHttpServer } from './http/httpServer';
import { createLoopbackEntry, type LoopbackEntryHandler } from './http/loopbackNames';
import { createMethodHandlers } from './rpc/methodHandlers';
import type { RpcSocketServer, RpcSurface } from './rpc/socketServer';
import type { Logger } from './runtime/log';
import { REPO_ROOT } from './runtime/paths';
import type { Runtime } from './runtime/runtime';

/** How long the page on `localhost` waits for the app's name before it stays without it (ORG-5). */
const NAME_PROBE_MS = 3000;

export interface FallbackOrigin {
  /** What `localhost:PORT` answers on the main server: the probe, and `127.0.0.1:PORT` handed to the fallback's server. */
  loopback: LoopbackEntryHandler;
  /** e.g. http://127.0.0.1:8787 */
  appOrigin: string;
  /** e.g. http://127.0.0.1:41234, the fallback's one shared preview origin. */
  previewOrigin: string;
  close(): Promise<void>;
}

/**
 * ORG-5: the app for a browser that cannot resolve `*.localhost` (Safari). The app lives on
 * `http://127.0.0.1:PORT` (a secure context in every browser, no name to resolve) and its previews
 * on one shared origin, `http://127.0.0.1:<a second port>`: another origin, so the same rules as
 * a shared `--preview-origin` hold (ORG-3, ORG-4), and same-site with the app (ORG-2).
 */
export async function startFallbackOrigin(options: {
  appOrigin: string;
  port: number;
  host: string;
  runtime: Runtime;
  rpc: () => RpcSocketServer | null;
  limits: HttpLimits;
  log: Logger;
  probeMs?: number;
}): Promise<FallbackOrigin> {
  const appOrigin = `http://127.0.0.1:${options.port}`;
  const origins: Origins = {
    app: new URL(appOrigin),
    port: options.port,
    previews: { kind: 'shared', origin: appOrigin },
  };
  let surface: RpcSurface | null = null;
  const byteRoutes = createByteRoutes(options.runtime, () => appOrigin, options.log);
  // NOTE: any port of 127.0.0.1: the preview port is chosen at each start, and the app's pages
  // (with this header) may come from its service worker's cache of an earlier start.
  const server: http.Server = createHttpServer({
    origins,
    app: new AppStatic(path.join(REPO_ROOT, 'out'), () => 'http://127.0.0.1:*'),
    ready: () => true,
    upgradeRpc: (req, socket, head) => {
      const rpc = options.rpc();
      if (rpc && surface) rpc.handleUpgrade(req, socket, head, surface);
      else socket.destroy();
    },
    limits: options.limits,
    bytes: (req, res, url) => byteRoutes.handle(req, res, url),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host, () => resolve());
  });
  const previewOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  origins.previews = { kind: 'shared', origin: previewOrigin };
  // pair.create on these connections hands out this origin's own pairing link.
  surface = { handlers: createMethodHandlers(options.runtime, origins.previews), appOrigin };
  return {
    loopback: createLoopbackEntry({
      appOrigin: options.appOrigin,
      fallbackOrigin: appOrigin,
      fallbackServer: server,
      probeMs: options.probeMs ?? NAME_PROBE_MS,
    }),
    appOrigin,
    previewOrigin,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
