import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { OWNER_ONLY_DIR_MODE, OWNER_ONLY_FILE_MODE, makeOwnerOnlyFolder } from '../store/ownerOnly';
import { RuntimeError } from '../errors';
import { withVerifiedOpen } from '../files/openVerified';
import { readFully } from '../files/readChunk';
import type { SecretFiles } from '../files/secretFiles';
import type { UploadRecord } from './uploadCatalog';

/** Name of the file an upload grows in until its last chunk is confirmed. */
const PARTIAL_NAME = '.partial';
const HASH_READ_BYTES = 4 * 1024 * 1024;

/**
 * The file name an agent sees: the user's name with anything a shell or a path could misread
 * replaced, never hidden, never empty (the folder is the upload's own, so names never collide).
 */
export function storedFileName(name: string): string {
  const safe = name
    .replace(/[^\p{L}\p{N} ._()+-]/gu, '_')
    .replace(/^[.\s]+/, '')
    .trim();
  return (safe === '' ? 'attachment' : safe).slice(0, 120);
}

/** A stored attachment that is no longer the file the runtime saved (a link, another size). */
const notStoredAsSaved = () =>
  new RuntimeError(
    'secret_file',
    'This attachment is not the file that was uploaded any more (it was replaced by a link or changed on the desktop), so it is not shown.',
    { reason: 'replaced' },
  );

/** Session ids are the runtime's UUIDs; anything else never becomes a path. */
const SESSION_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * The attachment files in the data folder (ATT-1): `pasted-images/<sessionId>/<uploadId>/<name>`,
 * owner-only (SEC-8). A chunk is synced before its offset is confirmed; the file gets its name
 * only once complete, so nothing half-stored ever has a name an agent could be given.
 */
export class AttachmentFiles {
  /** The root with every link resolved: a stored file is read only where the runtime put it (FILE-6). */
  private readonly canonicalRoot: string;

  constructor(
    readonly root: string,
    private readonly secrets: SecretFiles,
  ) {
    makeOwnerOnlyFolder(root);
    this.canonicalRoot = fs.realpathSync.native(root);
  }

  private sessionDir(sessionId: string): string {
    if (!SESSION_ID.test(sessionId)) throw new Error('unexpected session id');
    return path.join(this.root, sessionId);
  }

  private uploadDir(upload: Pick<UploadRecord, 'sessionId' | 'id'>): string {
    return path.join(this.sessionDir(upload.sessionId), upload.id);
  }

  private partialPath(upload: Pick<UploadRecord, 'sessionId' | 'id'>): string {
    return path.join(this.uploadDir(upload), PARTIAL_NAME);
  }

  /** Where a complete upload lives: the path agents get (ATT-2). */
  finalPath(upload: Pick<UploadRecord, 'sessionId' | 'id' | 'name'>): string {
    return path.join(this.uploadDir(upload), storedFileName(upload.name));
  }

  /** Writes consecutive chunks from `offset` and syncs them once (ATT-1: confirmed only once durable). */
  async writeChunks(upload: UploadRecord, offset: number, chunks: readonly Uint8Array[]): Promise<void> {
    fs.mkdirSync(this.uploadDir(upload), { recursive: true, mode: OWNER_ONLY_DIR_MODE });
    // NOTE: 'w' only from the first byte: a later chunk never recreates a file that was removed (session delete).
    const handle = await fs.promises.open(this.partialPath(upload), offset === 0 ? 'w' : 'r+', OWNER_ONLY_FILE_MODE);
    try {
      let at = offset;
      for (const bytes of chunks) {
        await handle.write(bytes, 0, bytes.length, at);
        at += bytes.length;
      }
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  /** SHA-256 of the first `length` bytes of the partial file (a resumed upload's state after a restart). */
  async hashPrefix(upload: UploadRecord, length: number): Promise<crypto.Hash> {
    const hash = crypto.createHash('sha256');
    const handle = await fs.promises.open(this.partialPath(upload), 'r');
    try {
      const buffer = Buffer.allocUnsafe(HASH_READ_BYTES);
      for (let at = 0; at < length;) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, length - at), at);
        if (bytesRead === 0) throw new Error('attachment file is shorter than confirmed');
        hash.update(buffer.subarray(0, bytesRead));
        at += bytesRead;
      }
    } finally {
      await handle.close();
    }
    return hash;
  }

  /** The last chunk is in: the file is cut to its length (a crash may have left more), named, and the name synced. */
  async finish(upload: UploadRecord): Promise<void> {
    const partial = this.partialPath(upload);
    await fs.promises.truncate(partial, upload.byteLength);
    await fs.promises.rename(partial, this.finalPath(upload));
    const dir = await fs.promises.open(this.uploadDir(upload), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  /** Whether the upload's complete file has its name (ATT-1: named only once verified whole). */
  hasFinished(upload: UploadRecord): boolean {
    try {
      return fs.statSync(this.finalPath(upload)).size === upload.byteLength;
    } catch {
      return false;
    }
  }

  /** Drops what an upload stored so far (a whole-file digest that did not match). */
  discardPartial(upload: UploadRecord): void {
    fs.rmSync(this.partialPath(upload), { force: true });
  }

  /** An abandoned upload's folder goes with everything in it (ATT-3). */
  removeUpload(upload: Pick<UploadRecord, 'sessionId' | 'id'>): void {
    fs.rmSync(this.uploadDir(upload), { recursive: true, force: true });
  }

  /**
   * Reads up to `into.length` bytes of a complete upload at `offset` (FILE-6): only the file the
   * runtime stored, so a stored path swapped for a symlink or a hard link to another file (an agent
   * is given the path, ATT-2) is refused, and so is a file that starts like a private key.
   */
  readComplete(upload: UploadRecord, offset: number, into: Buffer): number {
    const expected = path.join(this.canonicalRoot, path.relative(this.root, this.finalPath(upload)));
    return withVerifiedOpen(
      this.finalPath(upload),
      (real) => real === expected,
      ({ fd, stat }) => {
        if (!stat.isFile() || stat.nlink !== 1 || stat.size !== upload.byteLength) throw notStoredAsSaved();
        const refusal = this.secrets.refusalOfOpenFile(fd, stat, { uploadId: upload.id });
        if (refusal) throw refusal;
        return readFully(fd, into, offset);
      },
      (refusal) => {
        // A symlink put in its place fails to open (no-follow) like a missing file does.
        if (refusal.reason === 'refused' || fs.lstatSync(this.finalPath(upload), { throwIfNoEntry: false }))
          throw notStoredAsSaved();
        throw new Error('attachment file is missing');
      },
    );
  }

  /** STO-4: the session's attachments go with it (after the rows' transaction committed). */
  removeSession(sessionId: string): void {
    fs.rmSync(this.sessionDir(sessionId), { recursive: true, force: true });
  }

  /** Start-up: folders of sessions that no longer exist (a crash between delete and removal) go. */
  removeOrphans(liveSessions: ReadonlySet<string>): number {
    let removed = 0;
    for (const name of fs.readdirSync(this.root)) {
      if (liveSessions.has(name) || !SESSION_ID.test(name)) continue;
      fs.rmSync(path.join(this.root, name), { recursive: true, force: true });
      removed++;
    }
    return removed;
  }
}
