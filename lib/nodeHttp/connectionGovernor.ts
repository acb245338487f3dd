import type http from 'node:http';
import type net from 'node:net';

/** How the connection cap is kept under a flood (SEC-9). */
export interface ConnectionGovernorOptions {
  /** Open connections of every kind (WebSockets included). */
  maxConnections: number;
  /** Bytes of unfinished request heads over every connection; past it the largest are closed (431). */
  maxUnfinishedHeadBytes: number;
  /** Once more than half the cap waits for a request head, a head must arrive within this. */
  pressureHeadTimeoutMs: number;
  /** How often the pressure timeout is checked. */
  checkIntervalMs: number;
  now?: () => number;
}

interface Tracked {
  socket: net.Socket;
  address: string;
  /** Since when it waits for a head: its connect, or the end of its last answer. */
  waitingSince: number;
  /** `socket.bytesRead` when it began to wait: bytes after it are an unfinished head. */
  headStart: number;
  /** A request or a WebSocket is under way: never evicted. */
  busy: boolean;
  /** It completed a request before: idle between requests rather than a head that never came. */
  served: boolean;
}

/**
 * SEC-9: the connection cap without starving real clients. A connection over the cap is not
 * refused while an unfinished head holds a place: the oldest such connection of the address with
 * the most of them is closed instead, so clients that reconnect as soon as they are dropped only
 * evict each other. Under pressure (over half the cap waiting for a head) heads get a much shorter
 * timeout. The bytes of unfinished heads are bounded too: past the budget the largest are closed.
 */
export class ConnectionGovernor {
  private readonly tracked = new Map<net.Socket, Tracked>();
  private readonly now: () => number;
  private readonly timer: NodeJS.Timeout;

  constructor(
    server: http.Server,
    private readonly options: ConnectionGovernorOptions,
    private readonly close: (socket: net.Socket, status: number, reason: string) => void,
  ) {
    this.now = options.now ?? Date.now;
    server.on('connection', (socket: net.Socket) => this.admit(socket));
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      const entry = this.tracked.get(req.socket as net.Socket);
      if (!entry) return;
      entry.busy = true;
      res.once('finish', () => {
        entry.busy = false;
        entry.served = true;
        entry.waitingSince = this.now();
        entry.headStart = entry.socket.bytesRead;
      });
    });
    server.on('upgrade', (req: http.IncomingMessage) => {
      const entry = this.tracked.get(req.socket as net.Socket);
      if (entry) entry.busy = true;
    });
    this.timer = setInterval(() => this.check(), options.checkIntervalMs);
    this.timer.unref();
    server.once('close', () => clearInterval(this.timer));
  }

  get open(): number {
    return this.tracked.size;
  }

  private admit(socket: net.Socket): void {
    if (this.tracked.size >= this.options.maxConnections) {
      const victim = this.evictable();
      if (!victim) {
        socket.destroy();
        return;
      }
      this.drop(victim, 503, 'Service Unavailable');
    }
    const entry: Tracked = {
      socket,
      address: socket.remoteAddress ?? '',
      waitingSince: this.now(),
      headStart: 0,
      busy: false,
      served: false,
    };
    this.tracked.set(socket, entry);
    socket.once('close', () => this.tracked.delete(socket));
  }

  private drop(entry: Tracked, status: number, reason: string): void {
    this.tracked.delete(entry.socket);
    this.close(entry.socket, status, reason);
  }

  private isUnfinishedHead(entry: Tracked): boolean {
    return !entry.busy && (!entry.served || entry.socket.bytesRead > entry.headStart);
  }

  /**
   * The connection that gives way to a new one: an unfinished head of the address that holds the
   * most of them, oldest first; failing that, the longest idle kept-alive connection.
   */
  private evictable(): Tracked | null {
    const unfinished = [...this.tracked.values()].filter((e) => this.isUnfinishedHead(e));
    if (unfinished.length > 0) {
      const perAddress = new Map<string, number>();
      for (const entry of unfinished) perAddress.set(entry.address, (perAddress.get(entry.address) ?? 0) + 1);
      unfinished.sort(
        (a, b) => perAddress.get(b.address)! - perAddress.get(a.address)! || a.waitingSince - b.waitingSince,
      );
      return unfinished[0]!;
    }
    const idle = [...this.tracked.values()].filter((e) => !e.busy).sort((a, b) => a.waitingSince - b.waitingSince);
    return idle[0] ?? null;
  }

  private headBytes(entry: Tracked): number {
    return entry.socket.bytesRead - entry.headStart;
  }

  private check(): void {
    let unfinished = [...this.tracked.values()].filter((e) => this.isUnfinishedHead(e));
    if (unfinished.length > this.options.maxConnections / 2) {
      const deadline = this.now() - this.options.pressureHeadTimeoutMs;
      for (const entry of unfinished) if (entry.waitingSince <= deadline) this.drop(entry, 408, 'Request Timeout');
      unfinished = unfinished.filter((e) => this.tracked.has(e.socket));
    }
    let total = unfinished.reduce((sum, e) => sum + this.headBytes(e), 0);
    if (total <= this.options.maxUnfinishedHeadBytes) return;
    unfinished.sort((a, b) => this.headBytes(b) - this.headBytes(a) || a.waitingSince - b.waitingSince);
    for (const entry of unfinished) {
      if (total <= this.options.maxUnfinishedHeadBytes) break;
      total -= this.headBytes(entry);
      this.drop(entry, 431, 'Request Header Fields Too Large');
    }
  }
}
