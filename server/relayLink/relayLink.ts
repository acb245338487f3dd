import type dns from 'node:dns';
import type http from 'node:http';
import type { LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import WebSocket, { type ClientOptions, type RawData } from 'ws';
import { relayReconnectDelay } from './linkBackoff';
import {
  decodeLinkFrame,
  MAX_CHANNEL_FRAME_BYTES,
  RELAY_CLOSE_CODES,
  RELAY_DESKTOP_PATH,
  RelayChallengeSchema,
  RelayRegisteredSchema,
  registrationMessage,
  type RelayRegister,
} from '../../lib/relay/relayWire';
import type { Logger } from '../runtime/log';
import type { LinkStream } from './linkStream';
import { LinkStreams } from './linkStreams';
import { LinkWriter } from './linkWriter';
import type { RelayIdentity } from './relayIdentity';

/** A relay that does not finish the challenge in this time is left for the next attempt. */
const REGISTER_TIMEOUT_MS = 15_000;
/** After a takeover, reconnect delays start this far up the backoff (about 16 s). */
const TAKEOVER_BACKOFF_ATTEMPT = 5;

const textOf = (data: RawData) =>
  (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
const bytesOf = (data: RawData) =>
  Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);

/**
 * `*.localhost` names are loopback (RFC 6761), as browsers treat them; Node's resolver may not
 * know them, so a relay on such a name is reached on 127.0.0.1 (its Host header still names it).
 */
const loopbackLookup: LookupFunction = (_hostname, options, callback) => {
  if ((options as dns.LookupAllOptions).all)
    (callback as unknown as (error: null, addresses: dns.LookupAddress[]) => void)(null, [
      { address: '127.0.0.1', family: 4 },
    ]);
  else callback(null, '127.0.0.1', 4);
};

export interface RelayLinkOptions {
  /** The `--relay` origin. */
  relayUrl: URL;
  identity: RelayIdentity;
  log: Logger;
  /** RLY-6: the desktop's relay app origin, the server its TLS passthrough streams reach, and what ends their TLS. */
  passthrough: { origin: string; server: http.Server; acceptStream(stream: LinkStream): void };
  /**
   * How often the link is pinged; one that sent nothing (no pong, no bytes) for a whole interval is
   * taken for dead, closed and linked again (RLY-4): a silent path is noticed within two intervals.
   */
  pingMs: number;
}

/** What tests and the banner read of the link. */
export interface RelayLinkState {
  /** The `--relay` origin. */
  relayUrl: URL;
  desktopId: string;
  /** RLY-6: `https://<desktopId>.HOST`, served by this desktop through the relay's TLS port. */
  readonly passthroughOrigin: string;
  readonly linked: boolean;
  /** Runs each time the link registers (again); returns an unsubscribe. */
  onLinked(listener: () => void): () => void;
  /** Link frames dropped so far (malformed, or DATA for no stream). */
  readonly droppedFrames: number;
  /** The link socket's buffered bytes and the number of open TLS streams. */
  readonly buffers: { streams: number; link: number };
}

/**
 * The desktop's outbound link to a relay (RLY-1, RLY-6): registers with the desktop's Ed25519 key
 * after checking that the relay is the one `--relay` names, takes the TLS connections to its relay
 * names as streams, and reconnects with capped, jittered backoff when the link drops.
 */
export class RelayLink implements RelayLinkState {
  readonly relayUrl: URL;
  readonly desktopId: string;
  private ws: WebSocket | null = null;
  private streams: LinkStreams | null = null;
  private writer: LinkWriter | null = null;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly linkedListeners = new Set<() => void>();
  private dropped = 0;
  /** Between a register sent and `registered`: what the link will write with. */
  private pendingWriter: LinkWriter | null = null;

  constructor(private readonly options: RelayLinkOptions) {
    this.relayUrl = options.relayUrl;
    this.desktopId = options.identity.desktopId;
  }

  get passthroughOrigin(): string {
    return this.options.passthrough.origin;
  }

  get linked(): boolean {
    return this.streams !== null;
  }

  get droppedFrames(): number {
    return this.dropped;
  }

  get buffers(): { streams: number; link: number } {
    return { streams: this.streams?.openStreams.length ?? 0, link: this.writer?.bufferedAmount ?? 0 };
  }

  onLinked(listener: () => void): () => void {
    this.linkedListeners.add(listener);
    return () => this.linkedListeners.delete(listener);
  }

  start(): void {
    this.connect();
  }

  close(): void {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.ws?.close(1001, 'runtime shutting down');
    this.options.passthrough.server.closeAllConnections();
    this.options.passthrough.server.close();
  }

  private connect(): void {
    const { relayUrl, log } = this.options;
    const url = new URL(RELAY_DESKTOP_PATH, relayUrl);
    url.protocol = relayUrl.protocol === 'https:' ? 'wss:' : 'ws:';
    const localhost = relayUrl.hostname === 'localhost' || relayUrl.hostname.endsWith('.localhost');
    const options: ClientOptions & Pick<http.RequestOptions, 'lookup'> = {
      perMessageDeflate: false,
      // NOTE: a zero masking key, so `ws` sends each frame's bytes as they are instead of a masked
      // copy (a copy and a pass over every page). Masking keeps a hostile page in a browser from
      // choosing bytes that a proxy on the way reads as HTTP (RFC 6455 §10.3); this client is no
      // browser, and what it sends is TLS records and fixed-format headers nobody else chooses.
      generateMask: (mask: Buffer) => void mask.fill(0),
      // A DATA link frame carries one channel frame and the frame's header.
      maxPayload: MAX_CHANNEL_FRAME_BYTES + 1024,
      handshakeTimeout: REGISTER_TIMEOUT_MS,
      ...(localhost ? { lookup: loopbackLookup } : {}),
    };
    const ws = new WebSocket(url, options);
    this.ws = ws;
    let registered = false;
    let challenged = false;
    const registerTimer = setTimeout(() => ws.terminate(), REGISTER_TIMEOUT_MS);
    registerTimer.unref();
    let alive = true;
    const heartbeat = setInterval(() => {
      if (ws.readyState !== ws.OPEN) return;
      if (!alive) {
        log.warn('the relay link answers no pings; reconnecting');
        ws.terminate();
        return;
      }
      alive = false;
      ws.ping();
    }, this.options.pingMs);
    heartbeat.unref();
    ws.on('pong', () => (alive = true));
    // Any bytes count, so a link busy with one large frame is not taken for dead before the frame ends.
    // Listened to once `ws` reads the socket itself: a listener any sooner would start the flow early.
    let socket: Duplex | null = null;
    ws.once('upgrade', (response) => (socket = response.socket));
    ws.once('open', () => socket?.on('data', () => (alive = true)));

    ws.on('message', (data, isBinary) => {
      alive = true;
      if (registered) {
        if (!isBinary) return;
        let frame;
        try {
          frame = decodeLinkFrame(bytesOf(data));
        } catch (error) {
          this.dropped++;
          log.warn('dropping a malformed link frame', { reason: (error as Error).message });
          return;
        }
        this.streams?.handle(frame);
        return;
      }
      if (!challenged) {
        challenged = true;
        this.answerChallenge(ws, isBinary ? null : textOf(data));
        return;
      }
      if (!isBinary && RelayRegisteredSchema.safeParse(safeJson(textOf(data))).success) {
        registered = true;
        clearTimeout(registerTimer);
        this.linkUp(ws);
        return;
      }
      log.warn('the relay answered the registration with something else; reconnecting');
      ws.terminate();
    });
    ws.on('close', (code, reason) => {
      clearTimeout(registerTimer);
      clearInterval(heartbeat);
      if (this.ws === ws) this.linkDown(code, reason.toString('utf8'));
    });
    ws.on('error', (error) => log.warn('relay link error', { reason: error.message }));
  }

  /** Signs the relay's nonce only for the relay `--relay` names; else the link is refused. */
  private answerChallenge(ws: WebSocket, text: string | null): void {
    const { relayUrl, identity, log } = this.options;
    const challenge = RelayChallengeSchema.safeParse(text === null ? null : safeJson(text));
    if (!challenge.success) return this.refuseRelay(ws, 'the relay sent no valid challenge');
    const { publicUrl, nonce } = challenge.data;
    if (publicUrl !== relayUrl.origin)
      return this.refuseRelay(ws, `the relay calls itself ${publicUrl}, not ${relayUrl.origin}`);
    const register: RelayRegister = {
      type: 'register',
      desktopId: identity.desktopId,
      publicKey: Buffer.from(identity.signingPublicKey).toString('base64url'),
      signature: Buffer.from(identity.sign(registrationMessage(publicUrl, nonce))).toString('base64url'),
    };
    this.pendingWriter = new LinkWriter(ws);
    log.info('registering with the relay', { relay: relayUrl.origin, desktopId: identity.desktopId });
    ws.send(JSON.stringify(register));
  }

  private refuseRelay(ws: WebSocket, reason: string): void {
    this.options.log.warn('refusing the relay link', { reason });
    ws.close(1008, 'refused');
  }

  private linkUp(ws: WebSocket): void {
    const writer = this.pendingWriter;
    if (!writer || this.ws !== ws) return;
    this.attempt = 0;
    this.writer = writer;
    this.streams = new LinkStreams(writer, {
      acceptStream: (stream) => this.options.passthrough.acceptStream(stream),
      countDropped: () => this.dropped++,
      log: this.options.log,
    });
    this.options.log.info('linked to the relay', { relay: this.options.relayUrl.origin });
    for (const listener of this.linkedListeners) listener();
  }

  private linkDown(code: number, reason: string): void {
    const streams = this.streams;
    this.streams = null;
    this.writer = null;
    this.pendingWriter = null;
    this.ws = null;
    streams?.dropAll();
    if (this.stopped) return;
    if (code === RELAY_CLOSE_CODES.replaced) {
      // Another runtime registered this desktop id (a copied data folder): come back slowly, not in a tug of war.
      this.options.log.warn('another runtime with this relay identity linked to the relay');
      this.attempt = Math.max(this.attempt, TAKEOVER_BACKOFF_ATTEMPT);
    }
    const delay = relayReconnectDelay(this.attempt++);
    this.options.log.warn('the relay link is down; reconnecting', { code, reason, delayMs: delay });
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
    this.reconnectTimer.unref();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
