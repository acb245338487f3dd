import crypto from 'node:crypto';
import {
  ATTACHMENT_CHUNK_BYTES,
  MAX_ATTACHMENT_BYTES,
  isNativeImageType,
  type MessageAttachment,
  type UploadStatus,
} from '../../../lib/protocol/attachments';
import type { AgentAttachment } from '../agents/agent';
import { invalidParams } from '../errors';
import type { SecretFiles } from '../files/secretFiles';
import { AttachmentFiles } from './attachmentFiles';
import { hasImageSignature } from './imageSignature';
import { ChunkOrder } from './chunkOrder';
import { attachmentOf, UploadCatalog, type UploadRecord } from './uploadCatalog';
import { uploadErrors } from './uploadErrors';
import { DEFAULT_UPLOAD_QUOTA, freeDiskBytes, UploadQuota, type UploadQuotaOptions } from './uploadQuota';

export interface AttachmentsOptions {
  /** ATT-3: quotas, headroom and expiry; the defaults where absent. */
  quota?: Partial<UploadQuotaOptions>;
  /** The clock that stamps uploads and decides their expiry. */
  now?: () => number;
  /** Free bytes on the disk of a folder (statfs). */
  freeBytes?: (dir: string) => number;
}

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

interface QueuedChunk {
  params: UploadChunk;
  bytes: Uint8Array;
  /** The chunk's SHA-256, computed off the event loop from the moment it arrived. */
  digest: Promise<string>;
  resolve(status: UploadStatus): void;
  reject(error: unknown): void;
}

const statusOf = (u: UploadRecord): UploadStatus => ({
  uploadId: u.id,
  confirmedOffset: u.complete ? u.byteLength : u.confirmedOffset,
  byteLength: u.byteLength,
  complete: u.complete,
});
const sha256Hex = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex');
/** Web Crypto digests run on the thread pool, so a chunk is checked while the event loop serves the next request. */
const sha256HexOffThread = async (bytes: Uint8Array) =>
  Buffer.from(await crypto.webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');

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
  /** Chunks waiting for the upload's current write, in arrival order. */
  private readonly queued = new Map<string, QueuedChunk[]>();
  /** Uploads whose chunks are being written now. */
  private readonly writing = new Set<string>();
  /** Chunks that may arrive out of order (separate HTTP requests) wait here for their turn. */
  private readonly order = new ChunkOrder(
    (params, bytes) => this.chunk(params, bytes),
    // An unknown upload passes straight on, to be refused there with its own reason.
    (params) => this.catalog.get(params.uploadId)?.confirmedOffset ?? params.offset,
  );

  readonly quota: UploadQuota;
  private readonly now: () => number;

  constructor(catalog: UploadCatalog, root: string, secrets: SecretFiles, options: AttachmentsOptions = {}) {
    this.catalog = catalog;
    this.files = new AttachmentFiles(root, secrets);
    this.files.removeOrphans(catalog.sessionIds());
    this.now = options.now ?? Date.now;
    this.quota = new UploadQuota(
      catalog,
      root,
      { ...DEFAULT_UPLOAD_QUOTA, ...options.quota },
      options.freeBytes ?? freeDiskBytes,
    );
    this.expireAbandoned();
  }

  /**
   * Starts an upload begun by `deviceId`, or answers the earlier upload of the same file so the
   * client resumes it. A new one must fit the quotas and the free disk (ATT-3).
   */
  begin(params: BeginUpload, deviceId: string | null): UploadStatus {
    if (params.byteLength > MAX_ATTACHMENT_BYTES) throw uploadErrors.tooLarge(params.byteLength);
    this.expireAbandoned();
    const earlier = this.catalog.sameFile(
      params.sessionId,
      params.sha256,
      params.byteLength,
      params.name,
      params.mimeType,
    );
    // A crash may have left the earlier one named but not recorded complete: it is found so here too.
    if (earlier) return statusOf(this.recoverFinished(earlier));
    const id = `u${crypto.randomBytes(16).toString('hex')}`;
    // NOTE: check and insert run with no await between them, so two begins cannot both take the last room.
    this.quota.check(deviceId, params.byteLength);
    this.catalog.insert({ id, ...params, createdAt: this.now(), deviceId });
    return statusOf(this.catalog.get(id)!);
  }

  /**
   * ATT-3: unfinished uploads with no chunk for the expiry are abandoned: their bytes and rows
   * go, which gives back what they took of the quotas and of the disk. One being written now stays.
   * Returns how many went.
   */
  expireAbandoned(): number {
    let expired = 0;
    for (const upload of this.catalog.untouchedSince(this.now() - this.quota.options.expiryMs)) {
      if (this.writing.has(upload.id) || this.queued.has(upload.id)) continue;
      if (!this.catalog.deleteUnfinished(upload.id)) continue;
      this.digests.delete(upload.id);
      this.files.removeUpload(upload);
      expired++;
    }
    return expired;
  }

  status(sessionId: string, uploadId: string): UploadStatus {
    return statusOf(this.ownUpload(sessionId, uploadId));
  }

  private ownUpload(sessionId: string, uploadId: string): UploadRecord {
    const upload = this.catalog.get(uploadId);
    if (!upload) throw uploadErrors.noSuchUpload(uploadId);
    if (upload.sessionId !== sessionId) throw uploadErrors.otherSession();
    return this.recoverFinished(upload);
  }

  /**
   * A runtime that died between naming a complete file and recording it: the file got its name
   * only after its whole digest matched, so the name is proof enough and the record catches up.
   * The last batch may have held several chunks, so the record can be more than one chunk short.
   */
  private recoverFinished(upload: UploadRecord): UploadRecord {
    if (upload.complete || !this.files.hasFinished(upload)) return upload;
    this.catalog.db.transaction(() => {
      this.catalog.confirm(upload.id, upload.confirmedOffset, upload.byteLength, this.now());
      this.catalog.markComplete(upload.id, this.now());
    })();
    return this.catalog.get(upload.id)!;
  }

  /**
   * One chunk. Chunks of an upload are taken in arrival order; those that arrived while the last
   * ones were written are written together and synced once (group commit), and each is confirmed
   * only after that sync.
   */
  chunk(params: UploadChunk, bytes: Uint8Array): Promise<UploadStatus> {
    return new Promise((resolve, reject) => {
      const queue = this.queued.get(params.uploadId) ?? [];
      const digest = sha256HexOffThread(bytes);
      digest.catch(() => undefined); // NOTE: awaited when the chunk's batch is stored.
      queue.push({ params, bytes, digest, resolve, reject });
      this.queued.set(params.uploadId, queue);
      if (queue.length === 1 && !this.writing.has(params.uploadId)) void this.drain(params.uploadId);
    });
  }

  /** `chunk`, for chunks that may arrive a little out of order: each waits for the ones before it (ATT-1). */
  chunkInAnyOrder(params: UploadChunk, bytes: Uint8Array): Promise<UploadStatus> {
    return this.order.chunk(params, bytes);
  }

  private async drain(uploadId: string): Promise<void> {
    this.writing.add(uploadId);
    try {
      for (let batch = this.queued.get(uploadId); batch && batch.length > 0; batch = this.queued.get(uploadId)) {
        this.queued.delete(uploadId);
        await this.storeBatch(batch).catch((error: unknown) => {
          for (const chunk of batch!) chunk.reject(error);
        });
      }
    } finally {
      this.writing.delete(uploadId);
    }
  }

  /** Checks each chunk against where the upload stands, writes the good run of them, syncs once, then confirms. */
  private async storeBatch(batch: QueuedChunk[]): Promise<void> {
    const first = batch[0]!.params;
    const digests = await Promise.all(batch.map((chunk) => chunk.digest));
    const upload = this.ownUpload(first.sessionId, first.uploadId);
    const from = statusOf(upload).confirmedOffset;
    let at = from;
    const accepted: QueuedChunk[] = [];
    for (const chunk of batch) {
      const index = batch.indexOf(chunk);
      const refusal =
        accepted.length < index
          ? uploadErrors.outOfOrder(chunk.params.offset, at)
          : this.refusalOf(upload, chunk, digests[index]!, at);
      if (refusal) {
        chunk.reject(refusal);
        continue;
      }
      accepted.push(chunk);
      at += chunk.bytes.length;
    }
    if (accepted.length === 0) return;
    // The running digest advances while the write and its sync run on the thread pool; a failed write
    // leaves it ahead of the file, so the retried chunk finds no matching state and the end rehashes.
    const written = this.files.writeChunks(
      upload,
      from,
      accepted.map((c) => c.bytes),
    );
    let digest: crypto.Hash | null = null;
    for (const chunk of accepted) digest = this.advanceDigest(upload.id, chunk.params.offset, chunk.bytes);
    await written;
    if (at === upload.byteLength) await this.finishUpload(upload, from, digest);
    else if (!this.catalog.confirm(upload.id, from, at, this.now()))
      throw uploadErrors.outOfOrder(from, this.status(first.sessionId, upload.id).confirmedOffset);
    for (const chunk of accepted) {
      const end = chunk.params.offset + chunk.bytes.length;
      chunk.resolve({
        uploadId: upload.id,
        confirmedOffset: end,
        byteLength: upload.byteLength,
        complete: end === upload.byteLength,
      });
    }
  }

  /** Why a chunk at `at` cannot be stored (ATT-1), or null. Nothing is written for a refused chunk. */
  private refusalOf(upload: UploadRecord, chunk: QueuedChunk, digest: string, at: number): Error | null {
    const { params, bytes } = chunk;
    if (upload.complete || params.offset !== at) return uploadErrors.outOfOrder(params.offset, at);
    const expected = Math.min(ATTACHMENT_CHUNK_BYTES, upload.byteLength - params.offset);
    if (bytes.length !== expected) return uploadErrors.chunkSize(params.offset, expected, bytes.length);
    if (digest !== params.sha256) return uploadErrors.digestMismatch();
    if (params.offset === 0 && isNativeImageType(upload.mimeType) && !hasImageSignature(upload.mimeType, bytes))
      return uploadErrors.notAnImage(upload.mimeType);
    return null;
  }

  /** The last chunk is in: the whole file must be what the upload began with, or nothing is kept. */
  private async finishUpload(upload: UploadRecord, from: number, digest: crypto.Hash | null): Promise<void> {
    this.digests.delete(upload.id);
    const whole = (digest ?? (await this.files.hashPrefix(upload, upload.byteLength))).digest('hex');
    if (whole !== upload.sha256) {
      this.files.discardPartial(upload);
      this.catalog.reset(upload.id);
      throw uploadErrors.fileDigestMismatch();
    }
    await this.files.finish(upload);
    this.catalog.db.transaction(() => {
      this.catalog.confirm(upload.id, from, upload.byteLength, this.now());
      this.catalog.markComplete(upload.id, this.now());
    })();
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
  read(
    sessionId: string,
    uploadId: string,
    offset: number,
    length: number,
    allocate: (n: number) => Buffer,
  ): { bytes: Buffer; header: AttachmentChunk } {
    const upload = this.ownUpload(sessionId, uploadId);
    if (!upload.complete) throw uploadErrors.incomplete(upload.name, upload.confirmedOffset, upload.byteLength);
    if (offset > upload.byteLength)
      throw invalidParams(`Offset ${offset} is past the end of this ${upload.byteLength}-byte attachment.`, {
        size: upload.byteLength,
      });
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
