import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/database';
import { OWNER_ONLY_DIR_MODE, OWNER_ONLY_FILE_MODE } from '../store/ownerOnly';
import { conflict, invalidParams, isDiskFull, notFound, storageError } from '../errors';
import type { Logger } from '../log';
import type { DiskReserve } from '../store/diskReserve';
import { OutputCatalog, type CatalogRow, type OutputKey } from './catalog';
import {
  cutOffOutputMessage,
  recoverArtifact,
  STORAGE_FAILED_MESSAGE,
  STORAGE_FULL_MESSAGE,
  type RecoveryResult,
} from './recoverArtifact';
import { decideSavedCopy } from './agentCopy';
import { decideSettlement, type SettleDecision, type StreamLedger } from './settle';

const OUTPUT_FILE_SUFFIX = '.output';
export const STAGE_FILE_SUFFIX = '.stage';

/** What a timeline row shows of an artifact (OUT-1): sizes and flags, never bytes. */
export interface OutputState {
  byteLength: number;
  generation: number;
  complete: boolean;
  sourceIncomplete: boolean;
  storageError: string | null;
}

export interface OutputRange {
  offset: number;
  bytes: Buffer;
  availableBytes: number;
  generation: number;
  complete: boolean;
  sourceIncomplete: boolean;
}

const stateOf = (row: CatalogRow): OutputState => ({
  byteLength: row.byteLength,
  generation: row.generation,
  complete: row.complete,
  sourceIncomplete: row.sourceIncomplete,
  storageError: row.storageError,
});

const newFileName = () => crypto.randomBytes(16).toString('hex') + OUTPUT_FILE_SUFFIX;

function writeFully(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.length;) {
    done += fs.writeSync(fd, bytes, done, bytes.length - done, position + done);
  }
}

/** Writes the parts in order at `position`, one system call for all of them when the kernel takes them whole. */
function writeAllParts(fd: number, parts: readonly Buffer[], position: number): void {
  if (parts.length === 1) return writeFully(fd, parts[0]!, position);
  let written = fs.writevSync(fd, parts as Buffer[], position);
  let offset = position + written;
  for (const part of parts) {
    if (written >= part.length) {
      written -= part.length;
      continue;
    }
    // A short write (a signal, a nearly full disk): finish this part and the rest one by one.
    writeFully(fd, part.subarray(written), offset);
    offset += part.length - written;
    written = 0;
  }
}

/**
 * Command-output artifacts (OUT-1…OUT-6): one file per command in `command-outputs/`, a catalog
 * row per file, write-ahead appends and the recovery that makes them crash-safe.
 * Every method is synchronous: an append is never half-visible to another caller.
 */
export class CommandOutputStore {
  readonly catalog: OutputCatalog;

  constructor(
    db: Db,
    readonly dir: string,
    private readonly log: Logger,
    /** Freed when an append meets a full disk, so the failure can still be recorded (OUT-3). */
    private readonly reserve: DiskReserve | null = null,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: OWNER_ONLY_DIR_MODE });
    this.catalog = new OutputCatalog(db);
  }

  private filePath(row: CatalogRow): string {
    return path.join(this.dir, row.fileName);
  }

  /** Creates the empty artifact of a command that is starting. */
  create(key: OutputKey, sessionId: string): OutputState {
    const fileName = newFileName();
    fs.closeSync(fs.openSync(path.join(this.dir, fileName), 'wx', OWNER_ONLY_FILE_MODE));
    this.catalog.insert(key, sessionId, fileName);
    return stateOf(this.catalog.get(key)!);
  }

  state(key: OutputKey): OutputState | undefined {
    const row = this.catalog.get(key);
    return row && stateOf(row);
  }

  recover(key: OutputKey): RecoveryResult | undefined {
    const result = recoverArtifact(this.catalog, this.dir, key);
    if (result && result.outcome !== 'clean') {
      this.log.warn('command output recovered', {
        runId: key.runId,
        commandId: key.commandId,
        outcome: result.outcome,
      });
    }
    return result;
  }

  /**
   * The write-ahead append (OUT-2): a pending row with the expected offset, length, generation
   * and SHA-256, then the bytes, then one transaction that moves byte_length and deletes the
   * pending row. A failure marks the artifact unavailable (OUT-3) and later appends are dropped.
   * Returns false when the bytes were not stored.
   */
  appendWriteAhead(key: OutputKey, bytes: Buffer | readonly Buffer[], sha256: Buffer): boolean {
    const parts = Buffer.isBuffer(bytes) ? [bytes] : bytes;
    const length = parts.reduce((sum, part) => sum + part.length, 0);
    const recovered = this.recover(key);
    if (!recovered) throw notFound('No such command output.');
    const row = recovered.row;
    if (row.storageError || row.complete) return false;
    const offset = row.byteLength;
    let pendingId: number | null = null;
    let fd: number | null = null;
    try {
      pendingId = this.catalog.insertPending(key, offset, length, row.generation, sha256);
      fd = fs.openSync(this.filePath(row), 'r+');
      writeAllParts(fd, parts, offset);
      fs.closeSync(fd);
      fd = null;
      if (!this.catalog.commitAppend(key, pendingId, offset, offset + length)) {
        throw new Error('catalog length moved during an append');
      }
      return true;
    } catch (error) {
      this.failAppend(key, row, pendingId, fd, error);
      return false;
    }
  }

  private failAppend(
    key: OutputKey,
    row: CatalogRow,
    pendingId: number | null,
    fd: number | null,
    error: unknown,
  ): void {
    this.log.error('command output append failed', {
      runId: key.runId,
      commandId: key.commandId,
      reason: error instanceof Error ? error.message : String(error),
    });
    try {
      if (fd !== null) fs.closeSync(fd);
    } catch {
      // The descriptor is unusable either way; recovery below does not need it.
    }
    const full = isDiskFull(error);
    if (full) this.reserve?.release();
    // NOTE: mark the row first (OUT-3): storage that failed a write often fails the truncate too,
    // and the failure must be on the row whatever happens next.
    try {
      this.catalog.setStorageError(key, full ? STORAGE_FULL_MESSAGE : STORAGE_FAILED_MESSAGE);
    } catch {
      // The database is failing as well; the pending row below still lets recovery resolve it.
    }
    try {
      fs.truncateSync(this.filePath(row), row.byteLength);
      if (pendingId !== null) this.catalog.deletePending(pendingId);
    } catch {
      // The store itself is failing: the pending row stays and recovery resolves it at the next
      // append, read or start-up.
    }
  }

  /** Marks an artifact unavailable without an append failing (for example, the file was lost). */
  markStorageFailed(key: OutputKey): void {
    this.catalog.setStorageError(key, STORAGE_FAILED_MESSAGE);
  }

  /**
   * One ranged read (OUT-5): bound to the owning session and to a generation the artifact
   * still holds.
   */
  readOutputRange(
    sessionId: string,
    key: OutputKey,
    generation: number,
    offset: number,
    length: number,
    allocate: (count: number) => Buffer = Buffer.allocUnsafe,
  ): OutputRange {
    const initial = this.catalog.get(key);
    if (!initial) throw notFound('This command has no stored output.');
    if (initial.sessionId !== sessionId) throw conflict('This command output belongs to another session.');
    const { row, outcome } = this.recover(key)!;
    if (generation !== row.generation) {
      throw conflict(
        `Command output generation ${generation} was replaced by generation ${row.generation}; refresh the row and read again.`,
        { generation: row.generation, byteLength: row.byteLength },
      );
    }
    if (outcome === 'file-lost') throw storageError('The command output file is missing or shorter than recorded.');
    if (offset > row.byteLength) {
      throw invalidParams(`Offset ${offset} is past the end of the output (${row.byteLength} bytes).`, {
        availableBytes: row.byteLength,
      });
    }
    const count = Math.min(length, row.byteLength - offset);
    const bytes = allocate(count);
    if (count > 0) {
      const fd = fs.openSync(this.filePath(row), 'r');
      try {
        let done = 0;
        while (done < count) {
          const n = fs.readSync(fd, bytes, done, count - done, offset + done);
          if (n === 0) throw storageError('The command output file ended early.');
          done += n;
        }
      } finally {
        fs.closeSync(fd);
      }
    }
    return {
      offset,
      bytes,
      availableBytes: row.byteLength,
      generation: row.generation,
      complete: row.complete,
      sourceIncomplete: row.sourceIncomplete,
    };
  }

  /** Applies OUT-4 at completion: keep the stream, or store the aggregate as the next generation. */
  settleCompletedCommand(
    key: OutputKey,
    ledger: StreamLedger,
    aggregate: Buffer | null,
  ): { state: OutputState; decision: SettleDecision } {
    const recovered = this.recover(key);
    if (!recovered) throw notFound('No such command output.');
    const row = recovered.row;
    const decision = decideSettlement({
      artifactBytes: row.byteLength,
      storageFailed: row.storageError !== null,
      ledger,
      aggregate,
      artifactEquals: (agg) => this.fileEquals(row, agg),
    });
    // What the agent sent against what the rules decided: the record that tells an agent's lost deltas from ours (OUT-4).
    this.log.info('command output settled', {
      runId: key.runId,
      commandId: key.commandId,
      streamedBytes: ledger.bytes,
      deltas: ledger.deltas,
      aggregateBytes: aggregate?.length ?? null,
      action: decision.action,
      reason: decision.reason,
    });
    if (decision.action === 'replace' && aggregate) {
      this.replaceWithAggregate(key, row, aggregate, decision.sourceIncomplete);
    } else if (decision.action === 'keep') {
      this.catalog.markComplete(key, decision.sourceIncomplete);
    } else {
      this.catalog.markComplete(key, true);
    }
    return { state: stateOf(this.catalog.get(key)!), decision };
  }

  /** Marks a command's artifact complete as it stands, when the command ended without an aggregate. */
  closeWithoutAggregate(key: OutputKey): OutputState | undefined {
    if (!this.recover(key)) return undefined;
    this.catalog.markComplete(key, true);
    return this.state(key);
  }

  private fileEquals(row: CatalogRow, expected: Buffer): boolean {
    try {
      return fs.readFileSync(this.filePath(row)).subarray(0, row.byteLength).equals(expected);
    } catch {
      return false;
    }
  }

  /**
   * Flushes an artifact's bytes to the disk on the thread pool, so a large output does not stall
   * the event loop. Called before a command settles: a completed output survives power loss.
   */
  async syncToDisk(key: OutputKey): Promise<void> {
    const row = this.catalog.get(key);
    if (!row) return;
    let handle: fs.promises.FileHandle | null = null;
    try {
      handle = await fs.promises.open(this.filePath(row), 'r+');
      await handle.datasync();
    } catch (error) {
      this.log.warn('command output sync failed', { file: row.fileName, reason: (error as Error).message });
    } finally {
      await handle?.close();
    }
  }

  /** Writes the aggregate to a stage file, renames it into place, then points the row at it (OUT-3/OUT-4). */
  private replaceWithAggregate(key: OutputKey, row: CatalogRow, aggregate: Buffer, sourceIncomplete: boolean): void {
    const fileName = newFileName();
    const stage = path.join(this.dir, fileName + STAGE_FILE_SUFFIX);
    try {
      const fd = fs.openSync(stage, 'wx', OWNER_ONLY_FILE_MODE);
      try {
        writeFully(fd, aggregate, 0);
        fs.fdatasyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(stage, path.join(this.dir, fileName));
    } catch (error) {
      this.log.error('storing the command aggregate failed', { runId: key.runId, reason: (error as Error).message });
      fs.rmSync(stage, { force: true });
      this.catalog.setStorageError(key, isDiskFull(error) ? STORAGE_FULL_MESSAGE : STORAGE_FAILED_MESSAGE);
      this.catalog.markComplete(key, true);
      return;
    }
    this.pointAtNewGeneration(key, row, fileName, aggregate.length, sourceIncomplete);
  }

  /** Points the row at a file already renamed into place, unless another generation took over meanwhile (OUT-5). */
  private pointAtNewGeneration(
    key: OutputKey,
    row: CatalogRow,
    fileName: string,
    byteLength: number,
    sourceIncomplete: boolean,
  ): void {
    // OUT-3: an output the device could not store keeps saying so once an aggregate that is not
    // the whole of it replaced it; a whole aggregate leaves nothing lost to say.
    const cutOff = row.storageError !== null && sourceIncomplete ? cutOffOutputMessage(row.storageError) : null;
    if (this.catalog.replaceGeneration(key, row.generation, fileName, byteLength, sourceIncomplete, cutOff)) {
      fs.rmSync(this.filePath(row), { force: true });
    } else {
      fs.rmSync(path.join(this.dir, fileName), { force: true });
    }
  }

  /**
   * OUT-4 after settling: the agent's saved copy of a command whose source is unproven (see
   * `decideSavedCopy`). The copy is written and flushed to its stage file on the thread pool, so
   * the event loop never waits for the disk; the row moves to it only if it still holds the
   * generation that was decided on. A crash at any point leaves the settled row as it was
   * (start-up removes the stage file, and a renamed file no row names once it is an hour old,
   * OUT-6). Returns the row's state, or undefined when the artifact is gone.
   */
  async settleFromSavedCopy(
    key: OutputKey,
    ledger: StreamLedger,
    aggregate: Buffer | null,
    copy: Buffer,
  ): Promise<OutputState | undefined> {
    const recovered = this.recover(key);
    if (!recovered) return undefined;
    const row = recovered.row;
    if (!row.complete || !row.sourceIncomplete) return stateOf(row);
    // A row that says its device could not store the output is never proven in place: a whole copy replaces it (OUT-3).
    const artifactEquals = (bytes: Buffer) => row.storageError === null && this.fileEquals(row, bytes);
    const decision = decideSavedCopy({ artifactBytes: row.byteLength, ledger, aggregate, copy, artifactEquals });
    this.log.info('command output saved copy', {
      runId: key.runId,
      commandId: key.commandId,
      artifactBytes: row.byteLength,
      streamedBytes: ledger.bytes,
      copyBytes: copy.length,
      action: decision.action,
      reason: decision.reason,
    });
    if (decision.action === 'prove') this.catalog.markComplete(key, false);
    if (decision.action !== 'replace') return this.state(key);
    const fileName = newFileName();
    const stage = path.join(this.dir, fileName + STAGE_FILE_SUFFIX);
    try {
      const handle = await fs.promises.open(stage, 'wx', OWNER_ONLY_FILE_MODE);
      try {
        await handle.writeFile(copy);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      await fs.promises.rename(stage, path.join(this.dir, fileName));
    } catch (error) {
      // The settled artifact is untouched: the copy is simply not used.
      this.log.warn('storing the saved command output copy failed', {
        runId: key.runId,
        commandId: key.commandId,
        reason: (error as Error).message,
      });
      await fs.promises.rm(stage, { force: true });
      return this.state(key);
    }
    // The row may have been deleted (OUT-6) or replaced while the copy was written.
    const current = this.catalog.get(key);
    if (current?.generation === row.generation)
      this.pointAtNewGeneration(key, current, fileName, copy.length, decision.sourceIncomplete);
    else fs.rmSync(path.join(this.dir, fileName), { force: true });
    return this.state(key);
  }

  /** Removes artifact files after the transaction that deleted their rows committed (OUT-6). */
  removeFiles(fileNames: string[]): void {
    for (const name of fileNames) {
      try {
        fs.rmSync(path.join(this.dir, name), { force: true });
      } catch (error) {
        this.log.warn('removing a command output file failed', { file: name, reason: (error as Error).message });
      }
    }
  }
}
