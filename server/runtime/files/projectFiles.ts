import fs from 'node:fs';
import type { FileEntry } from '../../../lib/protocol/files';
import { MAX_TEXT_CONTENT_BYTES, TEXT_CONTENT_TOO_LARGE_MESSAGE } from '../../../lib/protocol/files';
import type { Project } from '../../../lib/protocol/rows';
import { invalidParams, notFound, RuntimeError } from '../errors';
import { confinePath, refusalOfCanonical, type ConfinedPath } from './confinePath';
import { contentVersionOf } from './contentVersion';
import { listOpenFolder } from './listFolder';
import { mimeTypeForPath } from '../../../lib/protocol/mimeTypes';
import { reopenDescriptor, withVerifiedOpen, type VerifiedOpen } from './openVerified';
import { SecretFiles } from './secretFiles';
import { readChunkFromOpenFile, readFully, type ChunkRead } from './readChunk';

/** An open, checked file whose descriptor the caller owns and closes. */
export interface KeptFile {
  fd: number;
  realPath: string;
  stat: fs.Stats;
}

export interface TextContent {
  text: string;
  byteLength: number;
  contentVersion: string;
  modifiedAt: number;
  mimeType: string;
}

/**
 * The project folders as the network sees them (FILE-1…FILE-3): every path goes through
 * `confinePath` first, then is opened and what was opened is checked by the same rule (SEC-7),
 * and a file by the secrets policy's checks of an open file (FILE-6).
 */
export class ProjectFiles {
  constructor(
    private readonly projects: readonly Project[],
    /** `--allow-external-files` (FILE-3). */
    private readonly externalAllowed: boolean,
    /** The secrets policy (FILE-6); the default refuses every type. */
    readonly secrets: SecretFiles = new SecretFiles(),
  ) {}

  private confine(projectDirectory: string, requestPath: string, allowExternalFile = false): ConfinedPath {
    return confinePath(this.projects, projectDirectory, requestPath, {
      allowExternal: this.externalAllowed && allowExternalFile,
      secrets: this.secrets,
    });
  }

  /** One folder, folders first then names; secrets and links leading out are left out. */
  list(projectDirectory: string, requestPath: string): FileEntry[] {
    const confined = this.confine(projectDirectory, requestPath);
    return this.openConfined(confined, requestPath, (folder) => {
      if (!folder.stat.isDirectory())
        throw invalidParams('This path is a file, not a folder.', { path: requestPath, kind: 'file' });
      return listOpenFolder(folder, confined.root, this.secrets);
    });
  }

  /** A text document of at most 2 MiB (FILE-1). */
  readContent(projectDirectory: string, requestPath: string, allowExternalFile?: boolean): TextContent {
    const confined = this.confine(projectDirectory, requestPath, allowExternalFile);
    return this.openConfined(confined, requestPath, ({ fd, stat, realPath }) => {
      this.requireServableFile(fd, stat, requestPath);
      if (stat.size > MAX_TEXT_CONTENT_BYTES) {
        throw new RuntimeError('too_large', TEXT_CONTENT_TOO_LARGE_MESSAGE, {
          byteLength: stat.size,
          maxBytes: MAX_TEXT_CONTENT_BYTES,
        });
      }
      const bytes = Buffer.allocUnsafe(stat.size);
      const read = readFully(fd, bytes, 0);
      return {
        text: bytes.subarray(0, read).toString('utf8'),
        byteLength: read,
        contentVersion: contentVersionOf(realPath, stat),
        modifiedAt: Math.floor(stat.mtimeMs),
        mimeType: mimeTypeForPath(realPath),
      };
    });
  }

  /** Up to 4 MiB from `offset`, read into `allocate(n)` (a pooled frame), with its SHA-256 (FILE-2). */
  readBinary(
    projectDirectory: string,
    requestPath: string,
    offset: number,
    allocate: (n: number) => Buffer,
    allowExternalFile?: boolean,
    length?: number,
  ): ChunkRead {
    const confined = this.confine(projectDirectory, requestPath, allowExternalFile);
    return this.openConfined(confined, requestPath, ({ fd, stat, realPath }) => {
      this.requireServableFile(fd, stat, requestPath);
      return readChunkFromOpenFile(fd, stat, realPath, offset, allocate, length);
    });
  }

  /**
   * The file opened and checked as `readBinary` does, on a descriptor of its own that the caller
   * closes: a rendition is made from exactly the file that passed the checks (SEC-7, FILE-10).
   */
  openKept(projectDirectory: string, requestPath: string): KeptFile {
    const confined = this.confine(projectDirectory, requestPath);
    return this.openConfined(confined, requestPath, (opened) => {
      this.requireServableFile(opened.fd, opened.stat, requestPath);
      return { fd: reopenDescriptor(opened), realPath: opened.realPath, stat: opened.stat };
    });
  }

  /**
   * Opens the confined path and checks what was opened against the same FILE-3 rule the path
   * passed before (SEC-7): a folder on the way swapped for a link after the check is refused.
   */
  private openConfined<T>(confined: ConfinedPath, requestPath: string, work: (opened: VerifiedOpen) => T): T {
    const options = { allowExternal: confined.allowExternal, secrets: this.secrets };
    const refusalOf = (real: string) => refusalOfCanonical(confined.root, real, options, { path: requestPath });
    return withVerifiedOpen(
      confined.canonical,
      (real) => refusalOf(real) === null,
      work,
      (refusal) => {
        throw (
          (refusal.reason === 'refused' ? refusalOf(refusal.realPath) : null) ??
          notFound('No such file or folder.', { path: requestPath })
        );
      },
    );
  }

  /** A regular file the secrets policy lets through once open (FILE-6: links, private keys). */
  private requireServableFile(fd: number, stat: fs.Stats, requestPath: string): void {
    if (stat.isDirectory()) throw invalidParams('This path is a folder, not a file.', { path: requestPath });
    if (!stat.isFile()) throw notFound('No such file.', { path: requestPath });
    const refusal = this.secrets.refusalOfOpenFile(fd, stat, { path: requestPath });
    if (refusal) throw refusal;
  }
}
