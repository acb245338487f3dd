import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { CLOSE_CODES } from '../../lib/protocol/closeCodes';
import type { Logger } from '../runtime/log';
import type { Runtime } from '../runtime/runtime';
import type { PreviewOrigins } from '../http/previewOrigins';
import { createMethodHandlers, type MethodHandlers } from './methodHandlers';
import { RpcConnection } from './rpcConnection';
import { socketLimitsFromEnv, type SocketLimits } from './socketLimits';
import { listenToWs, wsRpcSocket } from './wsRpcSocket';

/**
 * Frames up to this many times the frame limit are read so that an oversize one still gets a
 * `too_large` answer on a socket that stays open (RPC-3); past it `ws` closes with 1009. Before
 * `auth.hello` the much smaller pre-auth budget applies (SEC-9, RpcConnection).
 */
const READ_LIMIT_FRAMES = 4;

export type RpcSocketServer = ReturnType<typeof createRpcSocketServer>;

/** What an app origin's connections are served with: its handlers (preview origins, pairing links) and the origin itself. */
export interface RpcSurface {
  handlers: MethodHandlers;
  appOrigin: string;
}

/** Adapts `ws` to RpcConnection and forwards the runtime's notifications to authenticated sockets. */
export function createRpcSocketServer(
  runtime: Runtime,
  appOrigin: string,
  log: Logger,
  previewOrigins: PreviewOrigins,
  limits: SocketLimits = socketLimitsFromEnv(process.env),
) {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: READ_LIMIT_FRAMES * limits.maxFrameBytes,
    perMessageDeflate: false,
  });
  let relayPairingLink: ((code: string) => string) | null = null;
  const handlers = createMethodHandlers(runtime, previewOrigins, () => relayPairingLink);
  const connections = new Set<RpcConnection>();

  const unsubscribe = runtime.subscribe((event) => {
    if (event.type === 'notification') {
      for (const connection of connections) connection.notify(event.notification);
    } else {
      for (const connection of connections) if (connection.deviceId === event.deviceId) connection.revoke();
    }
  });

  const unauthenticatedCount = () => {
    let count = 0;
    for (const connection of connections) if (!connection.authenticated) count++;
    return count;
  };

  function accept(ws: WebSocket, wire: Duplex, surface: RpcSurface = { handlers, appOrigin }): void {
    const socket = wsRpcSocket(ws);
    // SEC-9: each waiting socket may hold a little memory until it authenticates; their number is capped.
    if (unauthenticatedCount() >= limits.maxUnauthenticatedSockets) {
      log.warn('refusing a socket: too many are waiting to authenticate', {
        waiting: limits.maxUnauthenticatedSockets,
      });
      socket.terminate(CLOSE_CODES.tryAgainLater, 'Too many connections are waiting to authenticate; try again later.');
      return;
    }
    const connection = new RpcConnection(socket, surface.handlers, surface.appOrigin, log, limits);
    connections.add(connection);
    listenToWs(
      ws,
      wire,
      {
        receive: (data, isBinary) => connection.receive(data, isBinary),
        countIncomingBytes: (n) => connection.countIncomingBytes(n),
        detach: () => {
          connection.detach();
          connections.delete(connection);
        },
      },
      (error) => log.warn('socket error', { reason: error.message }),
    );
  }

  return {
    /** The limits every socket of this server gets, those through a relay's TLS passthrough too (SEC-9, RLY-4). */
    limits,
    /** RLY-2: local `pair.create` answers also carry the link of the same code on the desktop's relay name. */
    setRelayPairingLink(link: (code: string) => string): void {
      relayPairingLink = link;
    },
    /** `/rpc` on the app origin; `surface` for another app origin of this runtime (its relay names, RLY-6). */
    handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, surface?: RpcSurface) {
      wss.handleUpgrade(req, socket, head, (ws) => accept(ws, socket, surface));
    },
    close() {
      unsubscribe();
      for (const ws of wss.clients) {
        // NOTE: a socket already closing (SEC-9 closed one that stopped reading, and holds it paused)
        // sent its close frame; waiting for the peer's would hold the shutdown for ws's 30 s close timeout.
        if (ws.readyState === ws.CLOSING) ws.terminate();
        else ws.close(CLOSE_CODES.goingAway, 'runtime shutting down');
      }
      wss.close();
    },
  };
}
