import type { RpcSocket } from './rpcSocket';
import type { SocketLimits } from './socketLimits';

export interface BackpressureEvents {
  /** The socket drained below the low mark: held requests and notifications may go. */
  released(): void;
  /** Over the soft cap for the whole stall time. */
  stalled(queuedBytes: number): void;
  /** Past the hard cap. */
  overflowed(queuedBytes: number): void;
}

/**
 * The backpressure state machine of one socket (SEC-9): flowing → held when the answers queued
 * unread pass the soft cap (requests stop being read); held → flowing when they drain to half of
 * it; held for the stall time → stalled; past the hard cap, at any time → overflowed.
 */
export class SendBackpressure {
  private held = false;
  private stallTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly socket: RpcSocket,
    private readonly limits: Pick<SocketLimits, 'softBufferedBytes' | 'hardBufferedBytes' | 'stallMs'>,
    private readonly events: BackpressureEvents,
  ) {}

  get isHeld(): boolean {
    return this.held;
  }

  /** Looks at the queue again: after every send and every frame written out. */
  check(): void {
    if (this.stopped) return;
    const queued = this.socket.bufferedAmount;
    if (queued > this.limits.hardBufferedBytes) {
      this.stop();
      this.events.overflowed(queued);
    } else if (!this.held && queued > this.limits.softBufferedBytes) {
      this.held = true;
      this.socket.pauseReading();
      this.stallTimer = setTimeout(() => {
        this.stop();
        this.events.stalled(this.socket.bufferedAmount);
      }, this.limits.stallMs);
      this.stallTimer.unref();
    } else if (this.held && queued <= this.limits.softBufferedBytes / 2) {
      this.held = false;
      this.clearStallTimer();
      this.socket.resumeReading();
      this.events.released();
    }
  }

  stop(): void {
    this.stopped = true;
    this.clearStallTimer();
  }

  private clearStallTimer(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = null;
  }
}
