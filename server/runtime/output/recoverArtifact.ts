import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CatalogRow, OutputCatalog, OutputKey } from './catalog';

export const STORAGE_FAILED_MESSAGE = 'Command output is unavailable because this device could not store it.';
/** OUT-3's message when the cause is a full disk, so the user knows what to do about it. */
export const STORAGE_FULL_MESSAGE = `${STORAGE_FAILED_MESSAGE} The disk is full.`;

/**
 * OUT-3: what the row says once the agent's aggregate replaced an output the device could not
 * store whole; the cut stays visible, with its cause.
 */
export function cutOffOutputMessage(storageError: string): string {
  const cause =
    storageError === STORAGE_FULL_MESSAGE
      ? 'the disk was full while the command ran'
      : 'this device could not store it while the command ran';
  return `Part of this command's output was lost: ${cause}. What is shown is the agent's own copy, which may be shortened.`;
}

/** What recovery found and did for one artifact: the five cases of OUT-2, plus "nothing to do". */
export type RecoveryOutcome =
  | 'clean'
  /** A pending row and no new bytes: the delta is lost, the file unchanged. */
  | 'pending-dropped'
  /** A torn write: the file was cut back to the catalog length. */
  | 'torn-cut'
  /** The bytes were all there and their digest matched: the append was committed. */
  | 'committed'
  /** The bytes were all there but their digest did not match: cut, storage error. */
  | 'digest-mismatch-cut'
  /** Bytes no pending row explains: cut back to the catalog length. */
  | 'unexplained-tail-cut'
  /** The file is shorter than the catalog, or gone: storage error. */
  | 'file-lost';

export interface RecoveryResult {
  outcome: RecoveryOutcome;
  row: CatalogRow;
}

function fileSize(file: string): number | null {
  try {
    return fs.statSync(file).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function digestOfRange(file: string, offset: number, length: number): Buffer {
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(Math.min(length, 1024 * 1024));
    for (let done = 0; done < length;) {
      const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, length - done), offset + done);
      if (n === 0) break;
      hash.update(chunk.subarray(0, n));
      done += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest();
}

function syncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Brings one artifact and its catalog row back into agreement (OUT-2). Runs before every
 * append, read and completion, and at start-up. It never extends what the catalog calls
 * committed except by a pending append whose digest matches, and never cuts a committed byte.
 */
export function recoverArtifact(catalog: OutputCatalog, dir: string, key: OutputKey): RecoveryResult | undefined {
  const row = catalog.get(key);
  if (!row) return undefined;
  const file = path.join(dir, row.fileName);
  const pending = catalog.pending(key);
  const size = fileSize(file);

  if (size === null || size < row.byteLength) {
    for (const p of pending) catalog.deletePending(p.id);
    if (!row.storageError) catalog.setStorageError(key, STORAGE_FAILED_MESSAGE);
    return { outcome: 'file-lost', row: catalog.get(key)! };
  }

  let outcome: RecoveryOutcome = 'clean';
  for (const p of pending) {
    if (p.generation !== row.generation || p.expectedOffset !== row.byteLength) {
      // Left over from a generation that was replaced, or already superseded: explains nothing.
      catalog.deletePending(p.id);
      continue;
    }
    const end = p.expectedOffset + p.length;
    const now = fileSize(file)!;
    if (now === row.byteLength) {
      catalog.deletePending(p.id);
      outcome = 'pending-dropped';
    } else if (now < end) {
      fs.truncateSync(file, row.byteLength);
      catalog.deletePending(p.id);
      outcome = 'torn-cut';
    } else if (digestOfRange(file, p.expectedOffset, p.length).equals(p.sha256)) {
      if (now > end) fs.truncateSync(file, end);
      syncFile(file);
      catalog.commitAppend(key, p.id, row.byteLength, end);
      row.byteLength = end;
      outcome = 'committed';
    } else {
      // NOTE: the error goes on the row before the cut: a recovery killed right after the cut
      // would otherwise find an ordinary lost delta next time and never report the mismatch.
      catalog.setStorageError(key, STORAGE_FAILED_MESSAGE);
      fs.truncateSync(file, row.byteLength);
      catalog.deletePending(p.id);
      outcome = 'digest-mismatch-cut';
    }
  }

  if (outcome === 'clean' && size > row.byteLength) {
    fs.truncateSync(file, row.byteLength);
    outcome = 'unexplained-tail-cut';
  }
  return { outcome, row: outcome === 'clean' ? row : catalog.get(key)! };
}
