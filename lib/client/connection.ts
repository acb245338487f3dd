import { CLOSE_CODES } from '../protocol/closeCodes';
import { PROTOCOL_VERSION } from '../protocol/version';
import { APP_RECONNECT_BACKOFF, backoffDelay } from '../shared/backoff';
import { httpOriginOfSocket } from './httpBytes';
import { RpcClient, RpcError, type WebSocketLike } from './rpcClient';

export type ConnectionState =
  /** `closeCode` on a retry: how the socket before it closed, so what is shown meanwhile stays the same. */
  | { kind: 'connecting'; attempt: number; closeCode?: number }
  | { kind: 'open'; client: RpcClient }
  /** `closeCode`: how the last socket closed, when it did (4404: a relay that does not link the desktop now). */
  | { kind: 'waiting'; attempt: number; retryAt: number; reason: string; closeCode?: number }
  | { kind: 'offline' }
  | { kind: 'unauthorized'; reason: string }
  | { kind: 'closed' };

/** What the connection needs from its surroundings: the browser's (browserConnectionEnvironment.ts) or a test's. */
export interface ConnectionEnvironment {
  createSocket(url: string): WebSocketLike;
  isOnline(): boolean;
  isHidden(): boolean;
  /** Calls `wake` when the network comes back or the page becomes visible; returns the unsubscribe. */
  onWake(wake: () => void): () => void;
  setTimer(run: () => void, ms: number): unknown;
  clearTimer(timer: unknown): void;
  now(): number;
  /**
   * Makes a plain request to the runtime, whose answer clears this site's cookies (SEC-8). The
   * app uses none, but a preview can set them on the app's domain until requests fail; the
   * WebSocket handshake's answer cannot clear them, so this request does.
   */
  clearCookies(): void;
}

export interface ConnectionOptions {
  url: string;
  token: string;
  environment: ConnectionEnvironment;
  /**
   * How long an open socket may take to answer a question after the page comes back into view or
   * the network changes (a phone that was in the background may hold a socket its network dropped
   * long ago); past it the socket is given up and a new one opened at once. 4 s by default.
   */
  resumeCheckMs?: number;
  /**
   * How long a new socket may take to open and answer `auth.hello`; past it the attempt is given
   * up and retried with the backoff (RLY-4: a path that swallows the connection, a relay whose
   * desktop link went silent, must not leave the app at "connecting"). 20 s by default.
   */
  openTimeoutMs?: number;
}

const RESUME_CHECK_MS = 4_000;
const OPEN_TIMEOUT_MS = 20_000;

/**
 * The one connection to the runtime, as an explicit state machine (STYLE: tldraw sync-core):
 * connecting → open; a drop waits a capped, jittered backoff and tries again; the browser going
 * online or the page becoming visible retries at once; a refused token stops until the user pairs
 * again. Events of a replaced socket are ignored.
 */
export class RuntimeConnection {
  private state: ConnectionState = { kind: 'closed' };
  private readonly listeners = new Set<(state: ConnectionState) => void>();
  private attempt = 0;
  private timer: unknown;
  private generation = 0;
  private stopWaking: (() => void) | null = null;
  /** The open socket being asked whether it still answers (retryNow). */
  private checking: RpcClient | null = null;
  /** The running attempt's deadline to open (openTimeoutMs). */
  private openTimer: unknown;
  private readonly env: ConnectionEnvironment;

  constructor(private readonly options: ConnectionOptions) {
    this.env = options.environment;
  }

  get current(): ConnectionState {
    return this.state;
  }

  subscribe(listener: (state: ConnectionState) => void): () => void {
    this.listeners.add(listener);
    listener(this.state);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    this.stopWaking ??= this.env.onWake(() => this.retryNow());
    this.connect();
  }

  stop(): void {
    this.generation++;
    this.env.clearTimer(this.timer);
    this.env.clearTimer(this.openTimer);
    this.stopWaking?.();
    this.stopWaking = null;
    if (this.state.kind === 'open') this.state.client.close();
    this.set({ kind: 'closed' });
  }

  /**
   * Retries now if waiting (the network came back, the page became visible). An open socket is
   * asked a question instead: one that cannot answer in time is dead, and is replaced at once.
   */
  retryNow(): void {
    if (this.env.isHidden()) return;
    if (this.state.kind === 'waiting' || this.state.kind === 'offline') {
      this.env.clearTimer(this.timer);
      this.connect();
    } else if (this.state.kind === 'open') {
      this.checkOpenSocket(this.state.client);
    }
  }

  private checkOpenSocket(client: RpcClient): void {
    if (this.checking === client) return;
    this.checking = client;
    const generation = this.generation;
    const timer = this.env.setTimer(() => {
      // An answer cleared `checking` (and this timer); a new socket changed the generation.
      if (generation !== this.generation || this.checking !== client) return;
      this.checking = null;
      // Its close may take minutes to arrive on a dead network: it is ignored from here on.
      this.generation++;
      client.close();
      this.attempt = 0;
      this.connect();
    }, this.options.resumeCheckMs ?? RESUME_CHECK_MS);
    void client
      .call('app.build')
      .catch(() => undefined)
      .finally(() => {
        this.env.clearTimer(timer);
        if (this.checking === client) this.checking = null;
      });
  }

  private set(state: ConnectionState): void {
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }

  private connect(): void {
    const generation = ++this.generation;
    if (!this.env.isOnline()) {
      this.set({ kind: 'offline' });
      return;
    }
    // Only a close the far side chose for a reason (the private 4xxx range) is worth keeping on screen.
    const before =
      this.state.kind === 'waiting' && (this.state.closeCode ?? 0) >= 4000 ? this.state.closeCode : undefined;
    this.set({ kind: 'connecting', attempt: this.attempt, ...(before === undefined ? {} : { closeCode: before }) });
    let socket: WebSocketLike;
    try {
      socket = this.env.createSocket(this.options.url);
    } catch (error) {
      this.scheduleRetry(generation, error instanceof Error ? error.message : 'could not open the connection');
      return;
    }
    const client = new RpcClient(socket);
    this.env.clearTimer(this.openTimer);
    this.openTimer = this.env.setTimer(() => {
      if (generation !== this.generation || this.state.kind !== 'connecting') return;
      client.close();
      this.scheduleRetry(generation, 'the desktop did not answer in time');
    }, this.options.openTimeoutMs ?? OPEN_TIMEOUT_MS);
    void client.closed.then(({ code, reason }) => {
      if (generation !== this.generation) return;
      if (code === CLOSE_CODES.unauthorized)
        this.set({ kind: 'unauthorized', reason: reason || 'This device is no longer paired.' });
      else
        this.scheduleRetry(
          generation,
          reason ? `connection closed (${code}: ${reason})` : `connection closed (${code})`,
          code,
        );
    });
    client.opened
      .then(() => client.call('auth.hello', { token: this.options.token, protocolVersion: PROTOCOL_VERSION }))
      .then(() => {
        if (generation !== this.generation) return client.close();
        this.env.clearTimer(this.openTimer);
        this.attempt = 0;
        client.httpBytes = { origin: httpOriginOfSocket(this.options.url), token: this.options.token };
        this.set({ kind: 'open', client });
        // Each connection's handshake carried whatever cookies there are: drop them now.
        this.env.clearCookies();
      })
      .catch((error: unknown) => {
        if (generation !== this.generation) return;
        if (error instanceof RpcError && error.code === 'unauthorized') {
          this.generation++;
          this.set({ kind: 'unauthorized', reason: error.message });
        } else if (error instanceof RpcError && error.code === 'invalid_params') {
          // A protocol version mismatch: retrying will not help until the app updates.
          this.generation++;
          this.set({ kind: 'unauthorized', reason: error.message });
        }
      });
  }

  private scheduleRetry(generation: number, reason: string, closeCode?: number): void {
    if (generation !== this.generation) return;
    this.generation++;
    this.env.clearTimer(this.openTimer);
    if (!this.env.isOnline()) {
      this.set({ kind: 'offline' });
      return;
    }
    // Cookies may be what broke the connection: they are gone before the next attempt.
    this.env.clearCookies();
    const delay = backoffDelay(this.attempt++, APP_RECONNECT_BACKOFF);
    const nextGeneration = this.generation;
    this.set({
      kind: 'waiting',
      attempt: this.attempt,
      retryAt: this.env.now() + delay,
      reason,
      ...(closeCode === undefined ? {} : { closeCode }),
    });
    this.timer = this.env.setTimer(() => {
      if (nextGeneration === this.generation) this.connect();
    }, delay);
  }
}

/** The runtime's WebSocket address for a page served by it. */
export function rpcUrlFor(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/rpc`;
}
