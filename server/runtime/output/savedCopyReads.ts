import type { Logger } from '../log';
import type { CommandOutputStore, OutputState } from './commandOutputStore';
import type { CatalogRow, OutputKey } from './catalog';
import type { StreamLedger } from './settle';

/** Reads the agent's saved copy of one output (at most SAVED_COPY_CAP_BYTES), or null when it keeps none. */
export type SavedCopyReader = () => Promise<Buffer | null>;

/** One command that settled with its source unproven, and how to read the agent's saved copy of it. */
export interface SavedCopyRequest {
  key: OutputKey;
  ledger: StreamLedger;
  aggregate: Buffer | null;
  read: SavedCopyReader;
}

/**
 * Reads agents' saved copies of unproven outputs in the background, one at a time (OUT-4): the
 * turn never waits for them, and at most one copy is in memory however many commands settle
 * unproven at once. A queued read is recorded on its row until it ran, so one the runtime did not
 * get to (a crash, a shutdown, an agent that went away) is read again at the next start-up. A
 * failed read leaves the settled row as it was.
 */
export class SavedCopyReads {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly outputs: CommandOutputStore,
    private readonly log: Logger,
  ) {}

  /** Resolves to the row's state once the copy was applied, or undefined when there was none or the read failed. */
  enqueue(
    request: SavedCopyRequest,
    options: { pending: boolean } = { pending: true },
  ): Promise<OutputState | undefined> {
    this.outputs.catalog.setSavedCopyPending(request.key, options.pending);
    const job = this.queue.then(() => this.apply(request));
    this.queue = job;
    return job;
  }

  /**
   * Start-up: the reads a stopped runtime never ran. What the stream delivered is no longer known,
   * so the artifact stands for it and no aggregate helps the proof. Each gets this one more try
   * (a read that keeps failing is not retried at every start). `readerFor` is null when the row's
   * agent keeps no copy (or its session is gone): then the row stays as it settled.
   */
  resumeAfterRestart(
    readerFor: (row: CatalogRow) => SavedCopyReader | null,
    settled: (row: CatalogRow, state: OutputState) => void,
  ): void {
    for (const row of this.outputs.catalog.savedCopyPending()) {
      const key = { runId: row.runId, commandId: row.commandId };
      const read = readerFor(row);
      if (!read) {
        this.outputs.catalog.setSavedCopyPending(key, false);
        continue;
      }
      const request = { key, ledger: { bytes: row.byteLength, deltas: 0 }, aggregate: null, read };
      void this.enqueue(request, { pending: false }).then((state) => state && settled(row, state));
    }
  }

  private async apply({ key, ledger, aggregate, read }: SavedCopyRequest): Promise<OutputState | undefined> {
    let copy: Buffer | null;
    try {
      copy = await read();
    } catch (error) {
      // The agent went away (shutdown, a crash): the row stays as it settled, and a live read stays pending.
      this.log.warn('reading the saved command output copy failed', {
        runId: key.runId,
        commandId: key.commandId,
        reason: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
    try {
      if (!copy) {
        this.log.info('command output saved copy', {
          runId: key.runId,
          commandId: key.commandId,
          copyBytes: null,
          action: 'keep',
          reason: 'the agent keeps no copy',
        });
        return undefined;
      }
      return await this.outputs.settleFromSavedCopy(key, ledger, aggregate, copy);
    } catch (error) {
      this.log.error(
        'applying the saved command output copy failed',
        { runId: key.runId, commandId: key.commandId },
        error,
      );
      return undefined;
    } finally {
      try {
        this.outputs.catalog.setSavedCopyPending(key, false);
      } catch {
        // The database closed (shutdown): the read runs again at the next start-up.
      }
    }
  }
}
