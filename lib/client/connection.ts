import { PROTOCOL_VERSION } from '../protocol/version';
import { reconnectDelay } from './backoff';
import { RpcClient, RpcError, type WebSocketLike } from './rpcClient';

export type ConnectionState =
  | { kind: 'connecting'; attempt: number }
  | { kind: 'open'; client: RpcClient }
  | { kind: 'waiting'; attempt: number; retryAt: number; reason: string }
  | { kind: 'offline' }
  | { kind: 'unauthorized'; reason: string }
  | { kind: 'closed' };

export interface ConnectionOptions {
  url: string;
  token: string;
  createSocket?: (url: string) => WebSocketLike;
  /** Seam for tests; the browser's `navigator.onLine` otherwise. */
  isOnline?: () => boolean;
}

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
  private timer: ReturnType<typeof setTimeout> | undefined;
  private generation = 0;
  private readonly onWake = () => this.retryNow();

  constructor(private readonly options: ConnectionOptions) {}

  get current(): ConnectionState {
    return this.state;
  }

  subscribe(listener: (state: ConnectionState) => void): () => void {
    this.listeners.add(listener);
    listener(this.state);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (typeof window !== 'undefined') {
      window.addEventListener('online', this.onWake);
      document.addEventListener('visibilitychange', this.onWake);
    }
    this.connect();
  }

  stop(): void {
    this.generation++;
    clearTimeout(this.timer);
    if (typeof window !== 'undefined') {
      window.removeEventListener('online', this.onWake);
      document.removeEventListener('visibilitychange', this.onWake);
    }
    if (this.state.kind === 'open') this.state.client.close();
    this.set({ kind: 'closed' });
  }

  /** Retries now if waiting (the network came back, the page became visible). */
  retryNow(): void {
    if (typeof document !== 'undefined' && document.visibilityState === 'hidden') return;
    if (this.state.kind === 'waiting' || this.state.kind === 'offline') {
      clearTimeout(this.timer);
      this.connect();
    }
  }

  private set(state: ConnectionState): void {
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }

  private online(): boolean {
    if (this.options.isOnline) return this.options.isOnline();
    return typeof navigator === 'undefined' || navigator.onLine !== false;
  }

  private connect(): void {
    const generation = ++this.generation;
    if (!this.online()) {
      this.set({ kind: 'offline' });
      return;
    }
    this.set({ kind: 'connecting', attempt: this.attempt });
    let socket: WebSocketLike;
    try {
      socket = this.options.createSocket ? this.options.createSocket(this.options.url) : createBrowserSocket(this.options.url);
    } catch (error) {
      this.scheduleRetry(generation, error instanceof Error ? error.message : 'could not open the connection');
      return;
    }
    const client = new RpcClient(socket);
    void client.closed.then(({ code, reason }) => {
      if (generation !== this.generation) return;
      if (code === 4401) this.set({ kind: 'unauthorized', reason: reason || 'This device is no longer paired.' });
      else this.scheduleRetry(generation, `connection closed (${code})`);
    });
    client.opened
      .then(() => client.call('auth.hello', { token: this.options.token, protocolVersion: PROTOCOL_VERSION }))
      .then(() => {
        if (generation !== this.generation) return client.close();
        this.attempt = 0;
        this.set({ kind: 'open', client });
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

  private scheduleRetry(generation: number, reason: string): void {
    if (generation !== this.generation) return;
    this.generation++;
    if (!this.online()) {
      this.set({ kind: 'offline' });
      return;
    }
    const delay = reconnectDelay(this.attempt++);
    const nextGeneration = this.generation;
    this.set({ kind: 'waiting', attempt: this.attempt, retryAt: Date.now() + delay, reason });
    this.timer = setTimeout(() => {
      if (nextGeneration === this.generation) this.connect();
    }, delay);
  }
}

function createBrowserSocket(url: string): WebSocketLike {
  const socket = new WebSocket(url);
  socket.binaryType = 'arraybuffer';
  return socket as unknown as WebSocketLike;
}

/** The runtime's WebSocket address for a page served by it. */
export function rpcUrlFor(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/rpc`;
}
