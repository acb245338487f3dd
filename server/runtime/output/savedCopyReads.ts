import type { Logger } from '../log';
import type { CommandOutputStore, OutputState } from './artifactStore';
import type { OutputKey } from './catalog';
import type { StreamLedger } from './settle';

/** One command that settled with its source unproven, and how to read the agent's saved copy of it. */
export interface SavedCopyRequest {
  key: OutputKey;
  ledger: StreamLedger;
  aggregate: Buffer | null;
  /** Resolves to the agent's saved copy (at most SAVED_COPY_CAP_BYTES), or null when it keeps none. */
  read: () => Promise<Buffer | null>;
}

/**
 * Reads agents' saved copies of unproven outputs in the background, one at a time (OUT-4): the
 * turn never waits for them, and at most one copy is in memory however many commands settle
 * unproven at once. A failed read leaves the settled row as it was.
 */
export class SavedCopyReads {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly outputs: CommandOutputStore,
    private readonly log: Logger,
  ) {}

  /** Resolves to the row's state once the copy was applied, or undefined when nothing changed or the read failed. */
  enqueue(request: SavedCopyRequest): Promise<OutputState | undefined> {
    const job = this.queue.then(() => this.apply(request));
    this.queue = job;
    return job;
  }

  private async apply({ key, ledger, aggregate, read }: SavedCopyRequest): Promise<OutputState | undefined> {
    try {
      const copy = await read();
      if (!copy) {
        this.log.info('command output saved copy', { runId: key.runId, commandId: key.commandId, copyBytes: null, action: 'keep', reason: 'the agent keeps no copy' });
        return undefined;
      }
      return await this.outputs.settleFromSavedCopy(key, ledger, aggregate, copy);
    } catch (error) {
      // The agent went away (shutdown, a crash, the session was deleted): the row stays as it settled.
      this.log.warn('reading the saved command output copy failed', { runId: key.runId, commandId: key.commandId, reason: error instanceof Error ? error.message : String(error) });
      return undefined;
    }
  }
}
