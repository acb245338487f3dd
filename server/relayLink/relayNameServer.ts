import type http from 'node:http';
import path from 'node:path';
import { AppStatic } from '../http/appStatic';
import { createByteRoutes } from '../http/byteRoutes';
import { createHttpServer } from '../http/httpServer';
import type { HttpLimits } from '../../lib/nodeHttp/httpLimits';
import type { Origins } from '../http/hostRouting';
import { previewFrameSource } from '../http/previewOrigins';
import type { Logger } from '../runtime/log';
import { REPO_ROOT } from '../runtime/paths';
import type { Runtime } from '../runtime/runtime';
import { createMethodHandlers } from '../rpc/methodHandlers';
import type { RpcSocketServer } from '../rpc/socketServer';

/** A desktop's two names under its relay (RLY-6), and their origins. */
export interface RelayNames {
  /** `https://<desktopId>.HOST[:port]`: the app, `/rpc` and pairing. */
  appOrigin: string;
  /** `https://p-<desktopId>.HOST[:port]`: its one shared preview origin (ORG-3). */
  previewOrigin: string;
  /** The two host names, for the certificate. */
  serverNames: [string, string];
}

/** The names of `desktopId` under the relay `--relay` names, on the relay's TLS port (443 unless `--relay-tls-port`). */
export function relayNamesFor(relayUrl: URL, desktopId: string, tlsPort: number): RelayNames {
  const host = relayUrl.hostname.toLowerCase();
  const port = tlsPort === 443 ? '' : `:${tlsPort}`;
  const app = `${desktopId}.${host}`;
  const preview = `p-${desktopId}.${host}`;
  return {
    appOrigin: `https://${app}${port}`,
    previewOrigin: `https://${preview}${port}`,
    serverNames: [app, preview],
  };
}

/**
 * The HTTP server of a desktop's relay names (RLY-6): the same routing as `--public-url` with
 * `--preview-origin` (ORG-3), the app origin being the desktop's relay name. It listens nowhere:
 * each TLS socket terminated from a relay stream is handed to it.
 */
export function createRelayNameServer(
  names: RelayNames,
  tlsPort: number,
  runtime: Runtime,
  rpc: RpcSocketServer,
  limits: HttpLimits,
  log: Logger,
): http.Server {
  const origins: Origins = {
    app: new URL(names.appOrigin),
    port: tlsPort,
    previews: { kind: 'shared', origin: names.previewOrigin },
  };
  // pair.create on these connections hands out this origin's own pairing link (`/pair#code=…`).
  const surface = { handlers: createMethodHandlers(runtime, origins.previews), appOrigin: names.appOrigin };
  const byteRoutes = createByteRoutes(runtime, () => names.appOrigin, log);
  const server = createHttpServer({
    origins,
    app: new AppStatic(path.join(REPO_ROOT, 'out'), () => previewFrameSource(origins.previews)),
    ready: () => true,
    upgradeRpc: (req, socket, head) => rpc.handleUpgrade(req, socket, head, surface),
    limits,
    bytes: (req, res, url) => byteRoutes.handle(req, res, url),
  });
  // NOTE: Node starts tracking a server's connections, and with it the request and header timeouts
  // (SEC-9), when it starts listening. This one never listens, so it is told it did.
  server.emit('listening');
  return server;
}
