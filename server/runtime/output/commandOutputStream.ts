import type { CommandOutputStore, OutputState } from './commandOutputStore';
import type { OutputKey } from './catalog';
import type { StreamLedger } from './settle';
import { acquireSlot, releaseSlot, SLOT_BYTES } from './appendSlots';
import { sha256OffThread, type DigestedGroup, type Sha256Digest } from './sha256Worker';

/** Past this many queued bytes the producer is asked to pause. */
const HIGH_WATER_BYTES = 8 * 1024 * 1024;
/** Committed bytes are flushed to the disk in the background every this many bytes. */
const BACKGROUND_SYNC_BYTES = 64 * 1024 * 1024;

/** One future append: whole deltas gathered in a slot, on their way through the SHA-256 worker. */
interface SealedBatch {
  length: number;
  digested: Promise<DigestedGroup>;
}

/**
 * One running command's output on its way to disk. Deltas are counted in the stream ledger as
 * they arrive (OUT-4) and appended write-ahead (OUT-2) in arrival order. Deltas that arrive
 * before the writer runs share one append (group commit) of at most 1 MiB of whole deltas,
 * gathered in a shared-memory slot. A sealed group's SHA-256 is computed on a worker thread
 * (PERF-1) while earlier groups are written; each group is appended only once its digest is
 * known, so the pending row always carries the digest before its bytes exist.
 * Once an append fails, later deltas are counted and dropped (OUT-3).
 */
export class CommandOutputStream {
  readonly ledger: StreamLedger = { bytes: 0, deltas: 0 };
  private readonly sealed: SealedBatch[] = [];
  private open: Buffer | null = null;
  private openBytes = 0;
  private queuedBytes = 0;
  private scheduled: NodeJS.Immediate | null = null;
  private writing = false;
  private writer: Promise<void> = Promise.resolve();
  private failed = false;
  private finished = false;
  private drainWaiters: (() => void)[] = [];
  private unsyncedBytes = 0;
  private syncing: Promise<void> | null = null;

  constructor(
    private readonly store: CommandOutputStore,
    readonly key: OutputKey,
    private readonly onCommitted: (state: OutputState) => void,
    private readonly digest: Sha256Digest = sha256OffThread,
  ) {}

  /** Queues one delta without hashing or writing it. Returns false when the producer should pause until `whenDrained`. */
  push(delta: Buffer): boolean {
    if (this.finished) throw new Error('output stream already finished');
    this.ledger.bytes += delta.length;
    this.ledger.deltas += 1;
    if (this.failed || delta.length === 0) return true;
    if (this.open && this.openBytes + delta.length > this.open.length) this.seal();
    this.open ??= acquireSlot(delta.length);
    delta.copy(this.open, this.openBytes);
    this.openBytes += delta.length;
    this.queuedBytes += delta.length;
    if (this.openBytes >= SLOT_BYTES) this.seal();
    this.schedule();
    return this.queuedBytes < HIGH_WATER_BYTES;
  }

  whenDrained(): Promise<void> {
    if (this.queuedBytes < HIGH_WATER_BYTES) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Waits until every queued delta is stored (or dropped), including deltas pushed meanwhile. */
  async flush(): Promise<void> {
    for (;;) {
      this.seal();
      this.startWriter();
      if (!this.writing) return;
      await this.writer;
    }
  }

  /** Flushes, then applies the completion rules with the agent's aggregate (OUT-4). */
  async finish(aggregate: Buffer | null): Promise<OutputState> {
    this.finished = true;
    await this.flush();
    await this.syncing;
    await this.store.syncToDisk(this.key);
    return this.store.settleCompletedCommand(this.key, this.ledger, aggregate).state;
  }

  /** Closes the open group and starts its digest on the worker. */
  private seal(): void {
    if (!this.open) return;
    const batch = { length: this.openBytes, digested: this.digest(this.open.subarray(0, this.openBytes)) };
    this.open = null;
    this.openBytes = 0;
    // A failed digest is handled where the writer awaits it; this only keeps it from being unhandled meanwhile.
    batch.digested.catch(() => undefined);
    this.sealed.push(batch);
  }

  /**
   * The group is sealed after the current I/O callbacks (setImmediate), so deltas that arrive in
   * the same turn of the event loop share one append.
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = null;
      this.seal();
      this.startWriter();
    });
  }

  private startWriter(): void {
    if (this.writing || this.sealed.length === 0) return;
    this.writing = true;
    this.writer = this.writeSealed();
  }

  /** Appends sealed groups in order, each as soon as its digest is known. */
  private async writeSealed(): Promise<void> {
    try {
      while (this.sealed.length > 0 && !this.failed) {
        const batch = this.sealed[0]!;
        let group: DigestedGroup | null = null;
        try {
          group = await batch.digested;
        } catch {
          // Without its digest the group cannot be appended write-ahead (OUT-2).
        }
        this.sealed.shift();
        this.queuedBytes -= batch.length;
        this.append(group);
        if (this.unsyncedBytes >= BACKGROUND_SYNC_BYTES && !this.syncing) this.syncInBackground();
        this.wakeDrainWaiters();
      }
      if (this.failed) this.dropQueued();
    } finally {
      // Cleared in the same turn as the last check of `sealed`: a group sealed later starts a new writer.
      this.writing = false;
    }
  }

  private append(group: DigestedGroup | null): void {
    let stored = false;
    try {
      if (group) stored = this.store.appendWriteAhead(this.key, group.bytes, group.sha256);
      else this.store.markStorageFailed(this.key);
    } catch {
      // The artifact is gone (its session was deleted): nothing left to append to.
    }
    if (group) {
      releaseSlot(Buffer.from(group.bytes.buffer));
      if (stored) this.unsyncedBytes += group.bytes.length;
    }
    if (!stored) this.failed = true;
    const state = this.store.state(this.key);
    if (state) this.onCommitted(state);
  }

  private dropQueued(): void {
    // Groups still at the worker are dropped with their memory; the collector takes it.
    this.sealed.length = 0;
    if (this.open) releaseSlot(this.open);
    this.open = null;
    this.openBytes = 0;
    this.queuedBytes = 0;
    this.wakeDrainWaiters();
  }

  private wakeDrainWaiters(): void {
    if (this.queuedBytes >= HIGH_WATER_BYTES || this.drainWaiters.length === 0) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const wake of waiters) wake();
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
}
