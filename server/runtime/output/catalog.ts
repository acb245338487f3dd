import type { Db } from '../store/database';

/** The key of one command's output (OUT-1). */
export interface OutputKey {
  runId: string;
  commandId: string;
}

export interface CatalogRow {
  runId: string;
  commandId: string;
  sessionId: string;
  fileName: string;
  byteLength: number;
  generation: number;
  complete: boolean;
  sourceIncomplete: boolean;
  storageError: string | null;
}

export interface PendingAppend {
  id: number;
  expectedOffset: number;
  length: number;
  generation: number;
  sha256: Buffer;
}

interface RawCatalogRow {
  run_id: string;
  command_id: string;
  session_id: string;
  file_name: string;
  byte_length: number;
  generation: number;
  complete: number;
  source_incomplete: number;
  storage_error: string | null;
}

const toRow = (r: RawCatalogRow): CatalogRow => ({
  runId: r.run_id,
  commandId: r.command_id,
  sessionId: r.session_id,
  fileName: r.file_name,
  byteLength: r.byte_length,
  generation: r.generation,
  complete: r.complete === 1,
  sourceIncomplete: r.source_incomplete === 1,
  storageError: r.storage_error,
});

/** Prepared statements over command_outputs and its pending appends, created once (STYLE 5). */
export class OutputCatalog {
  private readonly selectRow;
  private readonly selectAll;
  private readonly selectBySession;
  private readonly insertRow;
  private readonly selectPending;
  private readonly insertPendingStmt;
  private readonly deletePendingStmt;
  private readonly deletePendingForKey;
  private readonly advanceLength;
  private readonly setLength;
  private readonly setSavedCopyPendingStmt;
  private readonly selectSavedCopyPending;
  private readonly setStorageErrorStmt;
  private readonly markCompleteStmt;
  private readonly replaceGenerationStmt;
  private readonly deleteBySession;
  readonly commitAppend: (key: OutputKey, pendingId: number, from: number, to: number) => boolean;

  constructor(private readonly db: Db) {
    this.selectRow = db.prepare<[string, string], RawCatalogRow>(
      'SELECT * FROM command_outputs WHERE run_id = ? AND command_id = ?',
    );
    this.selectAll = db.prepare<[], RawCatalogRow>('SELECT * FROM command_outputs');
    this.selectBySession = db.prepare<[string], RawCatalogRow>('SELECT * FROM command_outputs WHERE session_id = ?');
    this.insertRow = db.prepare(
      `INSERT INTO command_outputs (run_id, command_id, session_id, file_name, byte_length, generation, complete, source_incomplete, created_at)
       VALUES (?, ?, ?, ?, 0, 1, 0, 1, ?)`,
    );
    this.selectPending = db.prepare<
      [string, string],
      { id: number; expected_offset: number; length: number; generation: number; sha256: Buffer }
    >(
      'SELECT id, expected_offset, length, generation, sha256 FROM command_output_pending_appends WHERE run_id = ? AND command_id = ? ORDER BY id',
    );
    this.insertPendingStmt = db.prepare(
      'INSERT INTO command_output_pending_appends (run_id, command_id, expected_offset, length, generation, sha256) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.deletePendingStmt = db.prepare('DELETE FROM command_output_pending_appends WHERE id = ?');
    this.deletePendingForKey = db.prepare(
      'DELETE FROM command_output_pending_appends WHERE run_id = ? AND command_id = ?',
    );
    this.advanceLength = db.prepare(
      'UPDATE command_outputs SET byte_length = ? WHERE run_id = ? AND command_id = ? AND byte_length = ?',
    );
    this.setLength = db.prepare('UPDATE command_outputs SET byte_length = ? WHERE run_id = ? AND command_id = ?');
    this.setStorageErrorStmt = db.prepare(
      'UPDATE command_outputs SET storage_error = ?, source_incomplete = 1 WHERE run_id = ? AND command_id = ?',
    );
    this.markCompleteStmt = db.prepare(
      'UPDATE command_outputs SET complete = 1, source_incomplete = ? WHERE run_id = ? AND command_id = ?',
    );
    this.replaceGenerationStmt = db.prepare(
      `UPDATE command_outputs SET file_name = ?, byte_length = ?, generation = generation + 1, complete = 1,
         source_incomplete = ?, storage_error = ? WHERE run_id = ? AND command_id = ? AND generation = ?`,
    );
    this.deleteBySession = db.prepare('DELETE FROM command_outputs WHERE session_id = ?');
    this.setSavedCopyPendingStmt = db.prepare(
      'UPDATE command_outputs SET saved_copy_pending = ? WHERE run_id = ? AND command_id = ?',
    );
    this.selectSavedCopyPending = db.prepare<[], RawCatalogRow>(
      'SELECT * FROM command_outputs WHERE saved_copy_pending = 1',
    );
    this.commitAppend = db.transaction((key: OutputKey, pendingId: number, from: number, to: number) => {
      const moved = this.advanceLength.run(to, key.runId, key.commandId, from).changes === 1;
      this.deletePendingStmt.run(pendingId);
      return moved;
    });
  }

  get(key: OutputKey): CatalogRow | undefined {
    const raw = this.selectRow.get(key.runId, key.commandId);
    return raw && toRow(raw);
  }

  all(): CatalogRow[] {
    return this.selectAll.all().map(toRow);
  }

  forSession(sessionId: string): CatalogRow[] {
    return this.selectBySession.all(sessionId).map(toRow);
  }

  insert(key: OutputKey, sessionId: string, fileName: string): void {
    this.insertRow.run(key.runId, key.commandId, sessionId, fileName, Date.now());
  }

  pending(key: OutputKey): PendingAppend[] {
    return this.selectPending.all(key.runId, key.commandId).map((p) => ({
      id: p.id,
      expectedOffset: p.expected_offset,
      length: p.length,
      generation: p.generation,
      sha256: p.sha256,
    }));
  }

  insertPending(key: OutputKey, offset: number, length: number, generation: number, sha256: Buffer): number {
    return Number(
      this.insertPendingStmt.run(key.runId, key.commandId, offset, length, generation, sha256).lastInsertRowid,
    );
  }

  deletePending(id: number): void {
    this.deletePendingStmt.run(id);
  }

  setByteLength(key: OutputKey, byteLength: number): void {
    this.setLength.run(byteLength, key.runId, key.commandId);
  }

  setStorageError(key: OutputKey, message: string): void {
    this.setStorageErrorStmt.run(message, key.runId, key.commandId);
  }

  markComplete(key: OutputKey, sourceIncomplete: boolean): void {
    this.markCompleteStmt.run(sourceIncomplete ? 1 : 0, key.runId, key.commandId);
  }

  /** OUT-4: the agent's saved copy of this output is still to be read (it survives a restart). */
  setSavedCopyPending(key: OutputKey, pending: boolean): void {
    this.setSavedCopyPendingStmt.run(pending ? 1 : 0, key.runId, key.commandId);
  }

  /** Rows whose saved-copy read never ran (the runtime stopped first). */
  savedCopyPending(): CatalogRow[] {
    return this.selectSavedCopyPending.all().map(toRow);
  }

  /** Points the row at a new file as the next generation, dropping pending appends of the old one. */
  replaceGeneration(
    key: OutputKey,
    fromGeneration: number,
    fileName: string,
    byteLength: number,
    sourceIncomplete: boolean,
    storageError: string | null = null,
  ): boolean {
    return this.db.transaction(() => {
      this.deletePendingForKey.run(key.runId, key.commandId);
      return (
        this.replaceGenerationStmt.run(
          fileName,
          byteLength,
          sourceIncomplete ? 1 : 0,
          storageError,
          key.runId,
          key.commandId,
          fromGeneration,
        ).changes === 1
      );
    })();
  }

  /** Deletes a session's catalog rows (and, by cascade, their pending appends); call inside the delete transaction (OUT-6). */
  deleteForSession(sessionId: string): string[] {
    const files = this.forSession(sessionId).map((r) => r.fileName);
    this.deleteBySession.run(sessionId);
    return files;
  }
}
