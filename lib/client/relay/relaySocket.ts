import { ChannelCipher, FRAME_KIND, type FrameAeadFactory } from '../../relay/channelCipher';
import { NoiseIKInitiator, type StaticKeyPair } from '../../relay/noise';
import { ChannelWelcomeSchema, RELAY_CLOSE_CODES, RelayNoticeSchema, channelPrologue, type ChannelHello, type ChannelWelcome } from '../../relay/relayWire';
import { CLOSE_CODES } from '../../protocol/closeCodes';
import type { WebSocketLike } from '../rpcClient';

/** The part of a WebSocket the relay socket drives: the browser's, or `ws` in Node tests. */
export interface RawRelaySocket {
  binaryType: string;
  readonly readyState: number;
  send(data: Uint8Array<ArrayBuffer>): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'close' | 'error' | 'message', listener: (event: { data?: unknown; code?: number; reason?: string }) => void): void;
}

export interface RelaySocketOptions {
  /** `wss://HOST/relay/device?desktop=ID` (relayDeviceUrl). */
  url: string;
  desktopId: string;
  /** The desktop's X25519 static public key, from the pairing link (RLY-2). */
  desktopKey: Uint8Array;
  /** This device's X25519 key pair; the private key never leaves WebCrypto. */
  deviceKeys: StaticKeyPair;
  /** Handshake message 1's payload: `{v:1}`, or `{v:1, pair}` when pairing. */
  hello: ChannelHello;
  createSocket: (url: string) => RawRelaySocket;
  /** The channel's AES-GCM (default WebCrypto, the browser's). */
  frameAead?: FrameAeadFactory;
  /** Where relay notices and dropped frames are told; the console unless a test listens. */
  log?: (message: string) => void;
  /** How long the channel may take to open (socket, handshake, welcome); RELAY_OPEN_TIMEOUT_MS unless a test shortens it. */
  openTimeoutMs?: number;
}

/**
 * The desktop's answer to message 1 could not be read: a wrong desktop key or a tampering relay.
 * Not 4401: a relay must not be able to send the user back to the pair screen, so this retries.
 */
export const HANDSHAKE_FAILED_CLOSE = 4400;

/**
 * The channel did not open in time: a relay or a desktop link that went silent answers neither
 * with a welcome nor with a close (RLY-4). The connection retries with its backoff, as for 4502.
 */
export const OPEN_TIMEOUT_CLOSE = 4504;
/** Longer than a relay node and a runtime take to notice a silent link (two 10 s pings), so a retry meets a fresh link. */
export const RELAY_OPEN_TIMEOUT_MS = 25_000;

const NOTICES_KEPT = 20;
const LINES_LOGGED = 50;
/**
 * The raw socket's close code comes from the relay, unauthenticated. 4401 sends the app to the
 * pair screen, so only the desktop's own refusal in the encrypted welcome may give it (`fail`);
 * a 4401 on the raw socket (a revocation the desktop closed with, or one the relay made up) is
 * retried instead, and the next handshake's welcome says whether the device is still paired.
 */
function relayCloseCode(code: number): number {
  return code === CLOSE_CODES.unauthorized ? HANDSHAKE_FAILED_CLOSE : code;
}

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

type Listener = (event: { data?: unknown; code?: number; reason?: string }) => void;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function bytesOf(data: unknown): Uint8Array | null {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return null;
}

function parseWelcome(payload: Uint8Array): ChannelWelcome | null {
  try {
    const welcome = ChannelWelcomeSchema.safeParse(JSON.parse(decoder.decode(payload)));
    return welcome.success ? welcome.data : null;
  } catch {
    return null;
  }
}

/**
 * A WebSocketLike through the relay (RLY-2, RLY-3): the Noise IK handshake runs first, `open`
 * fires only once the desktop's welcome is ok, and then every text or binary message of
 * protocol v1 travels sealed in one transport frame. The relay sees only sizes and timing; a
 * frame it forges, replays or garbles is dropped and counted, and the channel goes on.
 */
export class RelaySocket implements WebSocketLike {
  private state = CONNECTING;
  private readonly listeners = new Map<string, Listener[]>();
  private readonly raw: RawRelaySocket;
  private initiator: NoiseIKInitiator | null = null;
  private cipher: ChannelCipher | null = null;
  /** Incoming messages are handled one after the other: the handshake and opening are async. */
  private inbound: Promise<void> = Promise.resolve();
  /** Dropped frames not counted by the live cipher: before it existed, or by a cipher now gone. */
  private droppedBeforeOpen = 0;
  /** The node's latest notices (RelayNotice), kept for diagnostics; at most NOTICES_KEPT. */
  readonly notices: string[] = [];
  /** Lines logged so far: a hostile relay's flood of junk must not flood the console too. */
  private logged = 0;
  /** The desktop's refusal, when its welcome was not ok (authenticated by the handshake, unlike a node's close reason). */
  refusal: Extract<ChannelWelcome, { ok: false }> | null = null;
  /** The welcome's device id once open. */
  deviceId: string | null = null;
  private readonly openTimer: ReturnType<typeof setTimeout>;

  constructor(private readonly options: RelaySocketOptions) {
    this.openTimer = setTimeout(() => {
      if (this.state === CONNECTING) this.fail(OPEN_TIMEOUT_CLOSE, 'The desktop did not answer through the relay in time.');
    }, options.openTimeoutMs ?? RELAY_OPEN_TIMEOUT_MS);
    this.raw = options.createSocket(options.url);
    this.raw.binaryType = 'arraybuffer';
    this.raw.addEventListener('open', () => void this.startHandshake());
    this.raw.addEventListener('message', (event) => {
      const data = event.data;
      this.inbound = this.inbound.then(() => this.receive(data)).catch((error: unknown) => this.log(`a relay frame failed: ${String(error)}`));
    });
    this.raw.addEventListener('error', () => this.emit('error', {}));
    // The close waits for the frames before it: a refusal's welcome is still being read when the
    // desktop's close arrives, and frames that came first are delivered first.
    this.raw.addEventListener('close', (event) => {
      this.inbound = this.inbound.then(() => this.finish(relayCloseCode(event.code ?? 1006), event.reason ?? '')).catch((error: unknown) => this.log(`a close listener failed: ${String(error)}`));
    });
  }

  get readyState(): number {
    return this.state;
  }

  /** Frames dropped because they failed to open (forged, replayed, malformed) or came out of place. */
  get droppedFrames(): number {
    return this.droppedBeforeOpen + (this.cipher?.rejected ?? 0);
  }

  addEventListener(type: 'open' | 'close' | 'error' | 'message', listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  send(data: string | Uint8Array<ArrayBuffer>): void {
    if (this.state === CONNECTING) throw new Error('The relay channel is not open yet.');
    if (this.state !== OPEN || !this.cipher) return;
    const kind = typeof data === 'string' ? FRAME_KIND.text : FRAME_KIND.binary;
    const bytes = typeof data === 'string' ? encoder.encode(data) : data;
    // Seals resolve in call order (nonces are assigned at call time), so frames leave in order.
    void this.cipher.seal(kind, bytes).then(
      (frame) => {
        if (this.state === OPEN && this.raw.readyState === OPEN) this.raw.send(frame);
      },
      (error: unknown) => this.log(`could not seal a frame: ${String(error)}`),
    );
  }

  close(code = 1000, reason = ''): void {
    if (this.state === CLOSED || this.state === CLOSING) return;
    this.state = CLOSING;
    this.raw.close(code, reason);
  }

  private async startHandshake(): Promise<void> {
    const { desktopId, desktopKey, deviceKeys, hello } = this.options;
    try {
      this.initiator = new NoiseIKInitiator({ prologue: channelPrologue(desktopId), staticKeys: deviceKeys, remoteStaticKey: desktopKey });
      const message1 = await this.initiator.writeMessage1(encoder.encode(JSON.stringify(hello)));
      if (this.raw.readyState === OPEN) this.raw.send(message1);
    } catch (error) {
      this.fail(HANDSHAKE_FAILED_CLOSE, `The secure channel could not start: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async receive(data: unknown): Promise<void> {
    if (this.state === CLOSED) return;
    if (typeof data === 'string') {
      this.notice(data);
      return;
    }
    const bytes = bytesOf(data);
    if (!bytes) return;
    if (this.cipher) {
      const opened = await this.cipher.open(bytes);
      if (!opened) {
        this.log(`dropped a relay frame that failed to open (${this.droppedFrames} so far)`);
        return;
      }
      if (this.state !== OPEN) return;
      // Binary frames go on as the opened view: RpcClient takes a Uint8Array as it is, and a copy
      // of every 256 KiB output page would cost the reader (RLY-3).
      const message = opened.kind === FRAME_KIND.text ? decoder.decode(opened.data) : opened.data;
      this.emit('message', { data: message });
      return;
    }
    if (!this.initiator || this.state !== CONNECTING) {
      this.droppedBeforeOpen++;
      return;
    }
    await this.readWelcome(bytes);
  }

  private async readWelcome(message2: Uint8Array): Promise<void> {
    let result;
    try {
      result = await this.initiator!.readMessage2(message2);
    } catch {
      this.fail(HANDSHAKE_FAILED_CLOSE, "The desktop's answer could not be verified.");
      return;
    }
    this.initiator = null;
    const welcome = parseWelcome(result.payload);
    if (!welcome) {
      this.fail(HANDSHAKE_FAILED_CLOSE, "The desktop's welcome was malformed.");
      return;
    }
    if (!welcome.ok) {
      this.refusal = welcome;
      // The refusal is the desktop's own, authenticated by the handshake: shown on the pair screen,
      // except "too many attempts", which is waited out like the relay's own 4429.
      this.fail(welcome.code === 'rate_limited' ? RELAY_CLOSE_CODES.rateLimited : CLOSE_CODES.unauthorized, welcome.message);
      return;
    }
    if (this.state !== CONNECTING) return;
    clearTimeout(this.openTimer);
    this.cipher = new ChannelCipher(result.transport, this.options.frameAead);
    this.deviceId = welcome.deviceId;
    this.state = OPEN;
    this.emit('open', {});
  }

  private notice(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    const notice = RelayNoticeSchema.safeParse(parsed);
    const line = notice.success ? `${notice.data.reason}: ${notice.data.message}` : 'an unreadable relay notice';
    this.notices.push(line);
    if (this.notices.length > NOTICES_KEPT) this.notices.shift();
    this.log(`relay notice: ${line}`);
  }

  /** Ends the channel from this side with a code the connection acts on; the raw socket's close is then ignored. */
  private fail(code: number, reason: string): void {
    if (this.state === CLOSED) return;
    this.raw.close(1000, 'channel ended');
    this.finish(code, reason);
  }

  private finish(code: number, reason: string): void {
    if (this.state === CLOSED) return;
    clearTimeout(this.openTimer);
    this.state = CLOSED;
    this.droppedBeforeOpen += this.cipher?.rejected ?? 0;
    this.cipher = null;
    this.initiator = null;
    this.emit('close', { code, reason });
  }

  private emit(type: string, event: Parameters<Listener>[0]): void {
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }

  private log(message: string): void {
    if (this.logged++ >= LINES_LOGGED) return;
    (this.options.log ?? ((line: string) => console.warn(`[relay] ${line}`)))(this.logged === LINES_LOGGED ? `${message} (further relay messages are not logged)` : message);
  }
}
