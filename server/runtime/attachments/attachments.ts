import crypto from 'node:crypto';
import { ATTACHMENT_CHUNK_BYTES, MAX_ATTACHMENT_BYTES, isNativeImageType, type MessageAttachment, type UploadStatus } from '../../../lib/protocol/attachments';
import type { AgentAttachment } from '../agents/agent';
import { invalidParams } from '../errors';
import { AttachmentFiles } from './attachmentFiles';
import { hasImageSignature } from './imageSignature';
import { attachmentOf, UploadCatalog, type UploadRecord } from './uploadCatalog';
import { uploadErrors } from './uploadErrors';

export interface BeginUpload {
  sessionId: string;
  name: string;
  mimeType: string;
  byteLength: number;
  sha256: string;
}

export interface UploadChunk {
  sessionId: string;
  uploadId: string;
  offset: number;
  sha256: string;
}

/** A chunk of a complete attachment, shaped like a files.readBinary answer (FILE-2). */
export interface AttachmentChunk {
  offset: number;
  nextOffset: number | null;
  size: number;
  contentVersion: string;
  modifiedAt: number;
  mimeType: string;
  sha256: string;
}

const statusOf = (u: UploadRecord): UploadStatus => ({ uploadId: u.id, confirmedOffset: u.complete ? u.byteLength : u.confirmedOffset, byteLength: u.byteLength, complete: u.complete });
const sha256Hex = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex');

/**
 * Chat attachments (ATT-1): resumable chunked uploads into the session's folder, each chunk
 * checked and synced before it is confirmed; only complete uploads whose whole SHA-256 matched
 * can be put on a message, and agents get them by path (ATT-2).
 */
export class Attachments {
  readonly catalog: UploadCatalog;
  readonly files: AttachmentFiles;
  /** The running SHA-256 of each upload this process received from offset 0, with where it stands. */
  private readonly digests = new Map<string, { hash: crypto.Hash; offset: number }>();
  /** Chunks of one upload are handled one after another, in arrival order. */
  private readonly lines = new Map<string, Promise<unknown>>();

  constructor(catalog: UploadCatalog, root: string) {
    this.catalog = catalog;
    this.files = new AttachmentFiles(root);
    this.files.removeOrphans(catalog.sessionIds());
  }

  /** Starts an upload, or answers the earlier upload of the same file so the client resumes it. */
  begin(params: BeginUpload): UploadStatus {
    if (params.byteLength > MAX_ATTACHMENT_BYTES) throw uploadErrors.tooLarge(params.byteLength);
    const earlier = this.catalog.sameFile(params.sessionId, params.sha256, params.byteLength, params.name, params.mimeType);
    if (earlier) return statusOf(earlier);
    const id = `u${crypto.randomBytes(16).toString('hex')}`;
    this.catalog.insert({ id, ...params, createdAt: Date.now() });
    return statusOf(this.catalog.get(id)!);
  }

  status(sessionId: string, uploadId: string): UploadStatus {
    return statusOf(this.ownUpload(sessionId, uploadId));
  }

  private ownUpload(sessionId: string, uploadId: string): UploadRecord {
    const upload = this.catalog.get(uploadId);
    if (!upload) throw uploadErrors.noSuchUpload(uploadId);
    if (upload.sessionId !== sessionId) throw uploadErrors.otherSession();
    return upload;
  }

  chunk(params: UploadChunk, bytes: Uint8Array): Promise<UploadStatus> {
    const previous = this.lines.get(params.uploadId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.storeChunk(params, bytes));
    this.lines.set(params.uploadId, next);
    void next.finally(() => {
      if (this.lines.get(params.uploadId) === next) this.lines.delete(params.uploadId);
    }).catch(() => undefined);
    return next;
  }

  private async storeChunk(params: UploadChunk, bytes: Uint8Array): Promise<UploadStatus> {
    const upload = this.ownUpload(params.sessionId, params.uploadId);
    const confirmed = statusOf(upload).confirmedOffset;
    if (upload.complete || params.offset !== confirmed) throw uploadErrors.outOfOrder(params.offset, confirmed);
    const expected = Math.min(ATTACHMENT_CHUNK_BYTES, upload.byteLength - params.offset);
    if (bytes.length !== expected) throw uploadErrors.chunkSize(params.offset, expected, bytes.length);
    if (sha256Hex(bytes) !== params.sha256) throw uploadErrors.digestMismatch();
    if (params.offset === 0 && isNativeImageType(upload.mimeType) && !hasImageSignature(upload.mimeType, bytes)) throw uploadErrors.notAnImage(upload.mimeType);

    await this.files.writeChunk(upload, params.offset, bytes);
    const end = params.offset + bytes.length;
    const digest = this.advanceDigest(upload.id, params.offset, bytes);
    if (end < upload.byteLength) {
      if (!this.catalog.confirm(upload.id, params.offset, end)) throw uploadErrors.outOfOrder(params.offset, this.status(params.sessionId, upload.id).confirmedOffset);
      return this.status(params.sessionId, upload.id);
    }
    // The last chunk: the whole file must be what the upload began with, or nothing is kept.
    this.digests.delete(upload.id);
    const whole = (digest ?? (await this.files.hashPrefix(upload, upload.byteLength))).digest('hex');
    if (whole !== upload.sha256) {
      this.files.discardPartial(upload);
      this.catalog.reset(upload.id);
      throw uploadErrors.fileDigestMismatch();
    }
    await this.files.finish(upload);
    this.catalog.db.transaction(() => {
      this.catalog.confirm(upload.id, params.offset, end);
      this.catalog.markComplete(upload.id, Date.now());
    })();
    return this.status(params.sessionId, upload.id);
  }

  /** The running digest after this chunk, or null when this process did not see the upload from its start (rehashed at the end). */
  private advanceDigest(uploadId: string, offset: number, bytes: Uint8Array): crypto.Hash | null {
    let state = this.digests.get(uploadId);
    if (offset === 0) state = { hash: crypto.createHash('sha256'), offset: 0 };
    if (!state || state.offset !== offset) {
      this.digests.delete(uploadId);
      return null;
    }
    state.hash.update(bytes);
    state.offset += bytes.length;
    this.digests.set(uploadId, state);
    return state.hash;
  }

  /**
   * The uploads a chat.send names (ATT-1): each must exist, belong to this session and be
   * complete, else the message is refused and nothing is recorded.
   */
  checkForMessage(sessionId: string, uploadIds: readonly string[]): void {
    for (const uploadId of uploadIds) {
      const upload = this.ownUpload(sessionId, uploadId);
      if (!upload.complete) throw uploadErrors.incomplete(upload.name, upload.confirmedOffset, upload.byteLength);
    }
  }

  ofRun(runId: string): MessageAttachment[] {
    return this.catalog.ofRun(runId).map(attachmentOf);
  }

  /** What the agent of a run gets (ATT-2): stored paths of the run's complete attachments. */
  agentFilesOfRun(runId: string): AgentAttachment[] {
    return this.catalog
      .ofRun(runId)
      .filter((u) => u.complete)
      .map((u) => ({ path: this.files.finalPath(u), name: u.name, mimeType: u.mimeType, byteLength: u.byteLength }));
  }

  /** A chunk of a complete attachment into `allocate(n)` (the app's thumbnails, FILE-2). */
  read(sessionId: string, uploadId: string, offset: number, length: number, allocate: (n: number) => Buffer): { bytes: Buffer; header: AttachmentChunk } {
    const upload = this.ownUpload(sessionId, uploadId);
    if (!upload.complete) throw uploadErrors.incomplete(upload.name, upload.confirmedOffset, upload.byteLength);
    if (offset > upload.byteLength) throw invalidParams(`Offset ${offset} is past the end of this ${upload.byteLength}-byte attachment.`, { size: upload.byteLength });
    const into = allocate(Math.min(length, upload.byteLength - offset));
    const read = this.files.readComplete(upload, offset, into);
    const bytes = into.subarray(0, read);
    const end = offset + read;
    return {
      bytes,
      header: {
        offset,
        nextOffset: end >= upload.byteLength ? null : end,
        size: upload.byteLength,
        contentVersion: upload.sha256,
        modifiedAt: upload.completedAt ?? upload.createdAt,
        mimeType: upload.mimeType,
        sha256: sha256Hex(bytes),
      },
    };
  }

  /** STO-4: after the session's rows are gone (their upload rows go by cascade). */
  removeSession(sessionId: string): void {
    for (const id of this.digests.keys()) if (this.catalog.get(id) === undefined) this.digests.delete(id);
    this.files.removeSession(sessionId);
  }
}
