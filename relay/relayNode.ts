import crypto from 'node:crypto';
import type http from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { WebSocketServer, type WebSocket } from 'ws';
import { CHANNEL_WINDOW_BYTES, RELAY_CLOSE_CODES, RELAY_DESKTOP_PATH } from '../lib/relay/relayWire';
import { DEFAULT_HTTP_LIMITS } from '../lib/nodeHttp/httpLimits';
import { parseOrigin } from '../lib/nodeHttp/parseOrigin';
import { DesktopLink } from './desktopLink';
import { parseNodeMessage } from './nodeMessage';
import { PassthroughConnection } from './passthroughConnection';
import { createPassthroughServer, DEFAULT_HELLO_TIMEOUT_MS } from './passthroughServer';
import type { RelayedConnection } from './relayedConnection';
import { NODE_ID_PATTERN, SUBJECTS } from './natsWire';
import { DEFAULT_MEMORY_BUDGET_BYTES, DEFAULT_UNROUTED_FRAME_BYTES, meterIncoming, NodeBudget } from './nodeBudget';
import { DEFAULT_LIVENESS, NodeLiveness, type LivenessTiming } from './nodeLiveness';
import { DEFAULT_CONNECT_RATE, ConnectRateLimiter, type ConnectRate } from './rateLimit';
import type { RelayContext } from './relayContext';
import { createRelayHttpServer } from './relayHttpServer';
import { RelayLog, type RefusalKind } from './relayLog';

export interface RelayNodeOptions {
  /** The relay's public origin (`https://HOST`; plain http for `*.localhost`). */
  publicUrl: string;
  natsUrl: string;
  port?: number;
  host?: string;
  /**
   * RLY-6: a port (0: any free one) where TLS connections to `<desktopId>.HOST` and
   * `p-<desktopId>.HOST` are passed through to their desktop, which terminates TLS itself.
   */
  tlsPort?: number;
  /** How long a TLS client has to send its ClientHello (RLY-6). */
  helloTimeoutMs?: number;
  nodeId?: string;
  /** Relay sockets (desktop links and TLS passthrough connections) this node holds at once; more are closed (1013 for a link). */
  maxConnections?: number;
  connectRate?: ConnectRate;
  /**
   * A request header naming the client's address, set by the proxy in front (e.g. `x-forwarded-for`;
   * its last entry, the one the nearest proxy added, is used): behind a proxy every connection
   * comes from the proxy's address, and one rate limit for all would refuse everyone.
   */
  clientAddressHeader?: string;
  liveness?: LivenessTiming;
  registerTimeoutMs?: number;
  openTimeoutMs?: number;
  /** Tests shrink the window to see flow control without moving 40 MiB. */
  windowBytes?: number;
  /** The largest frame a desktop link may send before it registered (RLY-4); larger ones are refused 1009 at their header. */
  unroutedFrameBytes?: number;
  /** What all sockets together may make the node hold: write buffers, frames being joined or read (RLY-4). */
  memoryBudgetBytes?: number;
  /** How often the node pings each desktop link; one silent for an interval is dropped (RLY-4). */
  linkPingMs?: number;
  /** Where log lines go (default stderr); they carry ids, sizes and codes only. */
  log?: (line: string) => void;
}

export interface RelayNodeStats {
  desktopLinks: number;
  /** TLS connections passed through to desktops (RLY-6). */
  passthroughConnections: number;
  /** Passthrough connections whose desktop has not accepted the STREAM yet. */
  unroutedDevices: number;
  /** Bytes this node holds for its sockets (desktop links and passthrough streams): their write buffers, frames still being joined or read (the budget's count). */
  bufferedBytes: number;
  /** The budget `bufferedBytes` stays within (up to one socket read past it, which closes that socket). */
  budgetBytes: number;
  refusals: Partial<Record<RefusalKind, number>>;
}

export interface RelayNode {
  port: number;
  /** The TLS passthrough port (RLY-6), or null without `tlsPort`. */
  tlsPort: number | null;
  nodeId: string;
  stats(): RelayNodeStats;
  stop(): Promise<void>;
}

export const DEFAULT_RELAY_MAX_CONNECTIONS = 10_000;
/** Room past the socket cap for plain requests and for sockets that are only told 1013. */
const HTTP_CONNECTION_SLACK = 64;
export const DEFAULT_LINK_PING_MS = 10_000;

function remoteAddress(req: http.IncomingMessage, header: string | undefined): string {
  const named = header ? req.headers[header.toLowerCase()] : undefined;
  const value = Array.isArray(named) ? named[named.length - 1] : named;
  const last = value?.split(',').pop()?.trim();
  return last || (req.socket.remoteAddress ?? 'unknown');
}

/**
 * A relay node (RLY-1, RLY-4, RLY-6): links desktops (`/relay/desktop`), passes TLS connections to
 * their names through to them, and routes the streams' bytes over NATS to whichever node holds the
 * desktop's link. Its own origin serves `/healthz` and one static page, nothing a browser runs. It
 * keeps no session data and no keys.
 */
export async function startRelayNode(options: RelayNodeOptions): Promise<RelayNode> {
  const publicUrl = parseOrigin(options.publicUrl, '--public-url');
  const nodeId = options.nodeId ?? `n${crypto.randomBytes(5).toString('hex')}`;
  if (!NODE_ID_PATTERN.test(nodeId)) throw new Error('--node-id may have 1 to 24 letters, digits, - and _.');
  const log = new RelayLog(options.log ?? ((line) => process.stderr.write(line + '\n')));
  const maxConnections = options.maxConnections ?? DEFAULT_RELAY_MAX_CONNECTIONS;
  const nc: NatsConnection = await connect({
    servers: options.natsUrl,
    name: `hbcode-relay-${nodeId}`,
    maxReconnectAttempts: -1,
  });
  const links = new Map<string, DesktopLink>();
  /** TLS passthrough streams, by connection id. */
  const devices = new Map<string, RelayedConnection>();
  const liveness = new NodeLiveness(nc, nodeId, options.liveness ?? DEFAULT_LIVENESS, () => {
    for (const link of links.values()) link.sweep();
    for (const device of devices.values()) device.sweep();
    liveness.forgetSilent();
  });
  let counter = 0;
  const ctx: RelayContext = {
    nc,
    nodeId,
    log,
    liveness,
    publicUrl: publicUrl.origin,
    registerTimeoutMs: options.registerTimeoutMs ?? 10_000,
    openTimeoutMs: options.openTimeoutMs ?? 5_000,
    windowBytes: options.windowBytes ?? CHANNEL_WINDOW_BYTES,
    budget: new NodeBudget(options.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET_BYTES),
    linkPingMs: options.linkPingMs ?? DEFAULT_LINK_PING_MS,
    nextConnectionId: () => `${nodeId}.${++counter}`,
    localDesktop: (desktopId) => {
      const link = links.get(desktopId);
      return link?.ready ? link : null;
    },
  };

  const nodeSubscription: Subscription = nc.subscribe(SUBJECTS.node(nodeId), {
    callback: (error, msg) => {
      if (error) return;
      const parsedMessage = parseNodeMessage(msg);
      if (!parsedMessage) {
        log.refused('malformed_nats_message', { bytes: msg.data.length });
        return;
      }
      liveness.heard(parsedMessage.route.from);
      const device = devices.get(parsedMessage.connectionId);
      if (device) device.fromNats(parsedMessage.route, msg, parsedMessage.frame);
    },
  });
  await nc.flush();

  const rateLimiter = new ConnectRateLimiter(options.connectRate ?? DEFAULT_CONNECT_RATE);
  const sweepTimer = setInterval(() => rateLimiter.sweep(), 10_000);
  sweepTimer.unref();
  // Every desktop link starts with the small unrouted limit; registering raises it (setReadLimit).
  const unroutedFrameBytes = options.unroutedFrameBytes ?? DEFAULT_UNROUTED_FRAME_BYTES;
  const desktopServer = new WebSocketServer({
    noServer: true,
    maxPayload: unroutedFrameBytes,
    perMessageDeflate: false,
  });
  const openSockets = () => links.size + devices.size + pendingLinks.size;
  const pendingLinks = new Set<DesktopLink>();

  /** Rate and capacity, checked after the upgrade so the client sees the relay's close code. */
  const admit = (ws: WebSocket, req: http.IncomingMessage): boolean => {
    if (!rateLimiter.take(remoteAddress(req, options.clientAddressHeader))) {
      log.refused('rate_limited', { code: RELAY_CLOSE_CODES.rateLimited });
      ws.close(RELAY_CLOSE_CODES.rateLimited, 'Too many connection attempts: wait and retry.');
      return false;
    }
    if (openSockets() >= maxConnections) {
      log.refused('node_full', { code: RELAY_CLOSE_CODES.tryAgainLater });
      ws.close(RELAY_CLOSE_CODES.tryAgainLater, 'The relay node is full: try again later.');
      return false;
    }
    return true;
  };

  const acceptDesktop = (ws: WebSocket, req: http.IncomingMessage, socket: Duplex) => {
    if (!admit(ws, req)) return;
    const link: DesktopLink = new DesktopLink(ctx, ws, {
      registered: (registered) => {
        pendingLinks.delete(registered);
        const desktopId = registered.desktopId!;
        const earlier = links.get(desktopId);
        links.set(desktopId, registered);
        earlier?.close(RELAY_CLOSE_CODES.replaced, 'This desktop registered again.');
      },
      closed: (closed) => {
        pendingLinks.delete(closed);
        if (closed.desktopId && links.get(closed.desktopId) === closed) links.delete(closed.desktopId);
      },
    });
    if (link.desktopId === null) pendingLinks.add(link);
    socket.on('data', () => link.noteTraffic());
    // A link's frame arriving past the budget pauses the link until there is room (a whole link is
    // worth more than one device's connection); one that stays paused stops answering pings and goes.
    meterIncoming(ws, socket, ctx.budget, () => {
      if (ws.isPaused) return;
      log.refused('over_budget', { desktop: link.desktopId ?? undefined, bytes: ctx.budget.heldBytes });
      ws.pause();
      ctx.budget.whenRoom(() => ws.resume());
    });
  };

  const passthrough =
    options.tlsPort === undefined
      ? null
      : createPassthroughServer({
          relayHost: publicUrl.hostname,
          helloTimeoutMs: options.helloTimeoutMs ?? DEFAULT_HELLO_TIMEOUT_MS,
          admit: (socket) => {
            if (!rateLimiter.take(socket.remoteAddress ?? 'unknown')) {
              log.refused('rate_limited');
              return false;
            }
            if (openSockets() >= maxConnections) {
              log.refused('node_full');
              return false;
            }
            return true;
          },
          route: (socket, desktopId, hello) => {
            const id = ctx.nextConnectionId();
            devices.set(
              id,
              new PassthroughConnection(ctx, socket, id, desktopId, hello, (closed) => devices.delete(closed.id)),
            );
          },
          refused: (kind, bytes) => log.refused(kind, { bytes }),
        });
  /** Every socket of the TLS port, those still sending their ClientHello too: a stopping node drops them all. */
  const passthroughSockets = new Set<net.Socket>();
  if (passthrough) {
    passthrough.on('connection', (socket: net.Socket) => {
      passthroughSockets.add(socket);
      socket.once('close', () => passthroughSockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      passthrough.once('error', reject);
      passthrough.listen(options.tlsPort, options.host ?? '127.0.0.1', () => resolve());
    });
  }

  const server = createRelayHttpServer({
    hostname: publicUrl.hostname,
    ready: () => !nc.isClosed(),
    limits: { ...DEFAULT_HTTP_LIMITS, maxConnections: maxConnections + HTTP_CONNECTION_SLACK },
    upgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer, urlPath: string) => {
      if (urlPath !== RELAY_DESKTOP_PATH) return false;
      desktopServer.handleUpgrade(req, socket, head, (ws) => acceptDesktop(ws, req, socket));
      return true;
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;

  let stopping: Promise<void> | null = null;
  return {
    port,
    tlsPort: passthrough ? (passthrough.address() as net.AddressInfo).port : null,
    nodeId,
    stats: () => ({
      desktopLinks: links.size,
      passthroughConnections: devices.size,
      unroutedDevices: [...devices.values()].filter((d) => !d.routed).length,
      bufferedBytes: ctx.budget.heldBytes,
      budgetBytes: ctx.budget.limitBytes,
      refusals: Object.fromEntries(log.refusals),
    }),
    stop: () => {
      stopping ??= (async () => {
        clearInterval(sweepTimer);
        liveness.stop();
        nodeSubscription.unsubscribe();
        for (const link of [...links.values(), ...pendingLinks])
          link.close(RELAY_CLOSE_CODES.goingAway, 'The relay node is stopping.');
        for (const device of [...devices.values()])
          device.close(RELAY_CLOSE_CODES.desktopGone, 'The relay node is stopping.', true);
        await nc.drain().catch(() => undefined);
        for (const ws of desktopServer.clients) ws.terminate();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of passthroughSockets) socket.destroy();
        await new Promise<void>((resolve) => (passthrough ? passthrough.close(() => resolve()) : resolve()));
      })();
      return stopping;
    },
  };
}
