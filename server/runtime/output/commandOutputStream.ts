import crypto from 'node:crypto';
import type { CommandOutputStore, OutputState } from './artifactStore';
import type { OutputKey } from './catalog';
import type { StreamLedger } from './settle';

/** Deltas queued together are appended as one write-ahead record of about this size at most. */
const MAX_APPEND_BYTES = 1024 * 1024;
/** Past this many queued bytes the producer is asked to pause. */
const HIGH_WATER_BYTES = 8 * 1024 * 1024;
/** Committed bytes are flushed to the disk in the background every this many bytes. */
const BACKGROUND_SYNC_BYTES = 64 * 1024 * 1024;

/** One future append: the deltas it writes and the SHA-256 of their concatenation, built as they arrive. */
interface Batch {
  parts: Buffer[];
  size: number;
  hash: crypto.Hash;
}

/**
 * One running command's output on its way to disk. Deltas are counted in the stream ledger as
 * they arrive (OUT-4) and appended write-ahead (OUT-2) in arrival order. Deltas that arrive
 * before the writer runs share one append (group commit): each is hashed once as it arrives and
 * written from the producer's own buffer, so no byte is copied on the way to the file. Once an
 * append fails, later deltas are counted and dropped (OUT-3).
 */
export class CommandOutputStream {
  readonly ledger: StreamLedger = { bytes: 0, deltas: 0 };
  private readonly sealed: { parts: Buffer[]; size: number; sha256: Buffer }[] = [];
  private open: Batch | null = null;
  private queuedBytes = 0;
  private scheduled: NodeJS.Immediate | null = null;
  private idle: Promise<void> = Promise.resolve();
  private wakeIdle: (() => void) | null = null;
  private failed = false;
  private finished = false;
  private drainWaiters: (() => void)[] = [];
  private unsyncedBytes = 0;
  private syncing: Promise<void> | null = null;

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
    this.open ??= { parts: [], size: 0, hash: crypto.createHash('sha256') };
    this.open.parts.push(delta);
    this.open.size += delta.length;
    this.open.hash.update(delta);
    if (this.open.size >= MAX_APPEND_BYTES) this.seal();
    this.queuedBytes += delta.length;
    this.schedule();
    return this.queuedBytes < HIGH_WATER_BYTES;
  }

  whenDrained(): Promise<void> {
    if (this.queuedBytes < HIGH_WATER_BYTES) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Waits until every queued delta is stored (or dropped), including deltas pushed meanwhile. */
  async flush(): Promise<void> {
    while (this.scheduled) await this.idle;
  }

  /** Flushes, then applies the completion rules with the agent's aggregate (OUT-4). */
  async finish(aggregate: Buffer | null): Promise<OutputState> {
    this.finished = true;
    await this.flush();
    await this.syncing;
    await this.store.syncToDisk(this.key);
    return this.store.settleCompletedCommand(this.key, this.ledger, aggregate).state;
  }

  private seal(): void {
    if (!this.open) return;
    this.sealed.push({ parts: this.open.parts, size: this.open.size, sha256: this.open.hash.digest() });
    this.open = null;
  }

  /**
   * The writer runs after the current I/O callbacks (setImmediate), so deltas that arrive in the
   * same turn of the event loop share one append.
   */
  private schedule(): void {
    if (this.scheduled) return;
    if (!this.wakeIdle) this.idle = new Promise((resolve) => (this.wakeIdle = resolve));
    this.scheduled = setImmediate(() => {
      this.scheduled = null;
      this.writeQueued();
    });
  }

  /**
   * A long output is flushed to the disk while it streams, on the thread pool, so the sync at
   * completion only has the tail left to write.
   */
  private syncInBackground(): void {
    this.unsyncedBytes = 0;
    this.syncing = this.store.syncToDisk(this.key).finally(() => {
      this.syncing = null;
    });
  }

  private writeQueued(): void {
    this.seal();
    while (this.sealed.length > 0 && !this.failed) {
      const batch = this.sealed.shift()!;
      this.queuedBytes -= batch.size;
      let stored = false;
      try {
        stored = this.store.appendWriteAhead(this.key, batch.parts, batch.sha256);
      } catch {
        // The artifact is gone (its session was deleted): nothing left to append to.
      }
      if (!stored) this.failed = true;
      else this.unsyncedBytes += batch.size;
      const state = this.store.state(this.key);
      if (state) this.onCommitted(state);
    }
    if (this.failed) {
      this.sealed.length = 0;
      this.open = null;
      this.queuedBytes = 0;
    }
    if (this.unsyncedBytes >= BACKGROUND_SYNC_BYTES && !this.syncing) this.syncInBackground();
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const wake of waiters) wake();
    const wake = this.wakeIdle;
    this.wakeIdle = null;
    wake?.();
  }
}
