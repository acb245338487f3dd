import crypto from 'node:crypto';
import type { CommandOutputStore, OutputState } from './artifactStore';
import type { OutputKey } from './catalog';
import type { StreamLedger } from './settle';

/** Deltas queued together are appended as one write-ahead record of at most this size. */
const MAX_APPEND_BYTES = 1024 * 1024;
/** Below this a digest on this thread is cheaper than a hop to the thread pool. */
const INLINE_DIGEST_BYTES = 64 * 1024;
/** Past this many queued bytes the producer is asked to pause. */
const HIGH_WATER_BYTES = 8 * 1024 * 1024;

function digest(bytes: Buffer): Promise<Buffer> {
  if (bytes.length < INLINE_DIGEST_BYTES) return Promise.resolve(crypto.createHash('sha256').update(bytes).digest());
  // NOTE: WebCrypto hashes on the libuv thread pool, so the next batch is hashed on the other
  // core while this thread writes the current one.
  return crypto.subtle.digest('SHA-256', bytes).then((d) => Buffer.from(d));
}

/**
 * One running command's output on its way to disk. Deltas are counted in the stream ledger as
 * they arrive (OUT-4), queued, and appended write-ahead (OUT-2) in arrival order; deltas that
 * arrive while an append is being prepared share the next append (group commit). Once an append
 * fails, later deltas are counted and dropped (OUT-3).
 */
export class CommandOutputStream {
  readonly ledger: StreamLedger = { bytes: 0, deltas: 0 };
  private queue: Buffer[] = [];
  private queuedBytes = 0;
  private pumping: Promise<void> | null = null;
  private failed = false;
  private finished = false;
  private drainWaiters: (() => void)[] = [];

  constructor(
    private readonly store: CommandOutputStore,
    readonly key: OutputKey,
    private readonly onCommitted: (state: OutputState) => void,
  ) {}

  /** Queues one delta. Returns false when the producer should pause until `whenDrained`. */
  push(delta: Buffer): boolean {
    if (this.finished) throw new Error('output stream already finished');
    this.ledger.bytes += delta.length;
    this.ledger.deltas += 1;
    if (this.failed || delta.length === 0) return true;
    this.queue.push(delta);
    this.queuedBytes += delta.length;
    this.startPump();
    return this.queuedBytes < HIGH_WATER_BYTES;
  }

  private startPump(): void {
    this.pumping ??= this.pump().finally(() => {
      this.pumping = null;
      // NOTE: a delta pushed after the pump's last takeBatch but before this callback ran (for
      // example by a producer woken by onCommitted) found the pump still set; start it again.
      if (this.queue.length > 0) this.startPump();
    });
  }

  whenDrained(): Promise<void> {
    if (this.queuedBytes < HIGH_WATER_BYTES) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Waits until every queued delta is stored (or dropped). */
  async flush(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  /** Flushes, then applies the completion rules with the agent's aggregate (OUT-4). */
  async finish(aggregate: Buffer | null): Promise<OutputState> {
    this.finished = true;
    await this.flush();
    return this.store.settleCompletedCommand(this.key, this.ledger, aggregate).state;
  }

  private takeBatch(): Buffer | null {
    if (this.queue.length === 0) return null;
    let count = 0;
    let size = 0;
    while (count < this.queue.length && (count === 0 || size + this.queue[count]!.length <= MAX_APPEND_BYTES)) {
      size += this.queue[count]!.length;
      count++;
    }
    const parts = this.queue.splice(0, count);
    this.queuedBytes -= size;
    if (this.queuedBytes < HIGH_WATER_BYTES && this.drainWaiters.length > 0) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const wake of waiters) wake();
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
  }

  private async pump(): Promise<void> {
    let next = this.takeBatch();
    let nextDigest = next ? digest(next) : null;
    while (next && nextDigest) {
      const bytes = next;
      const sha256 = await nextDigest;
      next = this.failed ? null : this.takeBatch();
      nextDigest = next ? digest(next) : null;
      if (this.failed) break;
      let stored = false;
      try {
        stored = this.store.appendWriteAhead(this.key, bytes, sha256);
      } catch {
        // The artifact is gone (its session was deleted): nothing left to append to.
      }
      if (!stored) this.failed = true;
      const state = this.store.state(this.key);
      if (state) this.onCommitted(state);
    }
    if (this.failed) this.dropQueue();
  }

  private dropQueue(): void {
    this.queue = [];
    this.queuedBytes = 0;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const wake of waiters) wake();
  }
}
