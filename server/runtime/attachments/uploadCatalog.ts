import type { MessageAttachment } from '../../../lib/protocol/attachments';
import type { Db } from '../store/database';

export interface UploadRecord {
  id: string;
  sessionId: string;
  name: string;
  mimeType: string;
  byteLength: number;
  sha256: string;
  confirmedOffset: number;
  complete: boolean;
  createdAt: number;
  completedAt: number | null;
  /** The device that began it; null for the runtime's own token (ATT-3). */
  deviceId: string | null;
  /** When its last chunk was confirmed (its begin, before any): an unfinished one expires from here (ATT-3). */
  touchedAt: number;
}

interface RawUpload {
  id: string;
  session_id: string;
  name: string;
  mime_type: string;
  byte_length: number;
  sha256: string;
  confirmed_offset: number;
  complete: number;
  created_at: number;
  completed_at: number | null;
  device_id: string | null;
  touched_at: number | null;
}

const toUpload = (r: RawUpload): UploadRecord => ({
  id: r.id,
  sessionId: r.session_id,
  name: r.name,
  mimeType: r.mime_type,
  byteLength: r.byte_length,
  sha256: r.sha256,
  confirmedOffset: r.confirmed_offset,
  complete: r.complete === 1,
  createdAt: r.created_at,
  completedAt: r.completed_at,
  deviceId: r.device_id,
  touchedAt: r.touched_at ?? r.created_at,
});

export const attachmentOf = (u: UploadRecord): MessageAttachment => ({
  uploadId: u.id,
  name: u.name,
  mimeType: u.mimeType,
  byteLength: u.byteLength,
  sha256: u.sha256,
});

/** The attachment_uploads and run_attachments tables (ATT-1); statements prepared once. */
export class UploadCatalog {
  private readonly stmts;

  constructor(readonly db: Db) {
    this.stmts = {
      get: db.prepare<[string], RawUpload>('SELECT * FROM attachment_uploads WHERE id = ?'),
      sameFile: db.prepare<[string, string, number, string, string], RawUpload>(
        'SELECT * FROM attachment_uploads WHERE session_id = ? AND sha256 = ? AND byte_length = ? AND name = ? AND mime_type = ? ORDER BY complete DESC, confirmed_offset DESC LIMIT 1',
      ),
      insert: db.prepare(
        'INSERT INTO attachment_uploads (id, session_id, name, mime_type, byte_length, sha256, created_at, device_id, touched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      confirm: db.prepare(
        'UPDATE attachment_uploads SET confirmed_offset = ?, touched_at = ? WHERE id = ? AND confirmed_offset = ?',
      ),
      complete: db.prepare('UPDATE attachment_uploads SET complete = 1, completed_at = ? WHERE id = ?'),
      reset: db.prepare('UPDATE attachment_uploads SET confirmed_offset = 0 WHERE id = ?'),
      attach: db.prepare('INSERT INTO run_attachments (run_id, position, upload_id) VALUES (?, ?, ?)'),
      ofRun: db.prepare<[string], RawUpload>(
        'SELECT u.* FROM run_attachments ra JOIN attachment_uploads u ON u.id = ra.upload_id WHERE ra.run_id = ? ORDER BY ra.position',
      ),
      sessions: db.prepare<[], { id: string }>('SELECT id FROM sessions'),
      deviceBytes: db.prepare<[string | null], { bytes: number }>(
        'SELECT COALESCE(SUM(byte_length), 0) AS bytes FROM attachment_uploads WHERE device_id IS ?',
      ),
      totals: db.prepare<[], { bytes: number; unwritten: number }>(
        'SELECT COALESCE(SUM(byte_length), 0) AS bytes, COALESCE(SUM(CASE WHEN complete = 0 THEN byte_length - confirmed_offset ELSE 0 END), 0) AS unwritten FROM attachment_uploads',
      ),
      untouchedSince: db.prepare<[number], RawUpload>(
        'SELECT * FROM attachment_uploads WHERE complete = 0 AND COALESCE(touched_at, created_at) < ?',
      ),
      delete: db.prepare('DELETE FROM attachment_uploads WHERE id = ? AND complete = 0'),
    };
  }

  get(id: string): UploadRecord | undefined {
    const raw = this.stmts.get.get(id);
    return raw && toUpload(raw);
  }

  /** An earlier upload of the same file into the same session: begin resumes it (ATT-1). */
  sameFile(
    sessionId: string,
    sha256: string,
    byteLength: number,
    name: string,
    mimeType: string,
  ): UploadRecord | undefined {
    const raw = this.stmts.sameFile.get(sessionId, sha256, byteLength, name, mimeType);
    return raw && toUpload(raw);
  }

  insert(
    upload: Pick<
      UploadRecord,
      'id' | 'sessionId' | 'name' | 'mimeType' | 'byteLength' | 'sha256' | 'createdAt' | 'deviceId'
    >,
  ): void {
    this.stmts.insert.run(
      upload.id,
      upload.sessionId,
      upload.name,
      upload.mimeType,
      upload.byteLength,
      upload.sha256,
      upload.createdAt,
      upload.deviceId,
      upload.createdAt,
    );
  }

  /** Moves the confirmed offset from `from` to `to` at `now`; false when another write moved it first. */
  confirm(id: string, from: number, to: number, now: number): boolean {
    return this.stmts.confirm.run(to, now, id, from).changes === 1;
  }

  /** The bytes of every upload a device began and the runtime still keeps, finished or not (ATT-3). */
  bytesOfDevice(deviceId: string | null): number {
    return this.stmts.deviceBytes.get(deviceId)!.bytes;
  }

  /** Bytes of every kept upload, and the part of unfinished ones not yet written: what the disk still owes them (ATT-3). */
  totals(): { bytes: number; unwritten: number } {
    return this.stmts.totals.get()!;
  }

  /** Unfinished uploads with no chunk since `before` (ATT-3). */
  untouchedSince(before: number): UploadRecord[] {
    return this.stmts.untouchedSince.all(before).map(toUpload);
  }

  /** Forgets an unfinished upload; a finished one stays until its session goes. */
  deleteUnfinished(id: string): boolean {
    return this.stmts.delete.run(id).changes === 1;
  }

  markComplete(id: string, now: number): void {
    this.stmts.complete.run(now, id);
  }

  reset(id: string): void {
    this.stmts.reset.run(id);
  }

  /** Lists the uploads on a run; call inside the chat.send transaction. */
  attachToRun(runId: string, uploadIds: readonly string[]): void {
    uploadIds.forEach((uploadId, position) => this.stmts.attach.run(runId, position, uploadId));
  }

  ofRun(runId: string): UploadRecord[] {
    return this.stmts.ofRun.all(runId).map(toUpload);
  }

  sessionIds(): Set<string> {
    return new Set(this.stmts.sessions.all().map((s) => s.id));
  }
}
