import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { NODE_ID_PATTERN, SUBJECTS } from './natsWire';

export interface LivenessTiming {
  /** How often this node says it is alive. */
  heartbeatMs: number;
  /** A node not heard from for this long is dead: connections through it are closed (RLY-4). */
  deadAfterMs: number;
}

export const DEFAULT_LIVENESS: LivenessTiming = { heartbeatMs: 1_000, deadAfterMs: 3_500 };

/**
 * Heartbeats on `hbr.alive.<nodeId>`: each node publishes its own and remembers when it last heard
 * every other, so a device whose desktop's node died (or a desktop whose device's node died) is
 * told within a few seconds instead of waiting on a connection nobody serves.
 */
export class NodeLiveness {
  private readonly lastHeard = new Map<string, number>();
  private readonly subscription: Subscription;
  private readonly beat: NodeJS.Timeout;
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly nc: NatsConnection,
    private readonly nodeId: string,
    private readonly timing: LivenessTiming,
    onSweep: () => void,
  ) {
    this.subscription = nc.subscribe(SUBJECTS.allAlive, {
      callback: (error, msg) => {
        if (error) return;
        const id = msg.subject.slice(SUBJECTS.alive('').length);
        if (NODE_ID_PATTERN.test(id)) this.heard(id);
      },
    });
    this.beat = setInterval(() => this.publish(), timing.heartbeatMs);
    this.sweep = setInterval(onSweep, Math.max(100, Math.floor(timing.heartbeatMs / 2)));
    this.beat.unref();
    this.sweep.unref();
    this.publish();
  }

  /** Any message from a node proves it alive, as a heartbeat does. */
  heard(nodeId: string): void {
    this.lastHeard.set(nodeId, Date.now());
  }

  isAlive(nodeId: string): boolean {
    if (nodeId === this.nodeId) return !this.nc.isClosed();
    const at = this.lastHeard.get(nodeId);
    return at !== undefined && Date.now() - at <= this.timing.deadAfterMs;
  }

  /** Forgets nodes silent for long (they are dead, or gone for good). */
  forgetSilent(): void {
    const cutoff = Date.now() - 10 * this.timing.deadAfterMs;
    for (const [id, at] of this.lastHeard) if (at < cutoff) this.lastHeard.delete(id);
  }

  stop(): void {
    clearInterval(this.beat);
    clearInterval(this.sweep);
    this.subscription.unsubscribe();
  }

  private publish(): void {
    if (!this.nc.isClosed()) this.nc.publish(SUBJECTS.alive(this.nodeId));
  }
}
