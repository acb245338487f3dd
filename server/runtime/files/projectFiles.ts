import fs from 'node:fs';
import type { FileEntry } from '../../../lib/protocol/files';
import { MAX_TEXT_CONTENT_BYTES, TEXT_CONTENT_TOO_LARGE_MESSAGE } from '../../../lib/protocol/files';
import type { Project } from '../../../lib/protocol/rows';
import { invalidParams, notFound, RuntimeError } from '../errors';
import { confinePath, refusalOfCanonical, type ConfinedPath } from './confinePath';
import { contentVersionOf } from './contentVersion';
import { listOpenFolder } from './listFolder';
import { mimeTypeForPath } from './mimeTypes';
import { withVerifiedOpen, type VerifiedOpen } from './openVerified';
import { readChunkFromOpenFile, type ChunkRead } from './readChunk';

export interface TextContent {
  text: string;
  byteLength: number;
  contentVersion: string;
  modifiedAt: number;
  mimeType: string;
}

/**
 * The project folders as the network sees them (FILE-1…FILE-3): every path goes through
 * `confinePath` first, then is opened and what was opened is checked by the same rule (SEC-7).
 */
export class ProjectFiles {
  constructor(
    private readonly projects: readonly Project[],
    /** `--allow-external-files` (FILE-3). */
    private readonly externalAllowed: boolean,
  ) {}

  private confine(projectDirectory: string, requestPath: string, allowExternalFile = false): ConfinedPath {
    return confinePath(this.projects, projectDirectory, requestPath, { allowExternal: this.externalAllowed && allowExternalFile });
  }

  /** One folder, folders first then names; hidden secrets and links leading out are left out. */
  list(projectDirectory: string, requestPath: string): FileEntry[] {
    const confined = this.confine(projectDirectory, requestPath);
    return openConfined(confined, requestPath, (folder) => {
      if (!folder.stat.isDirectory()) throw invalidParams('This path is a file, not a folder.', { path: requestPath, kind: 'file' });
      return listOpenFolder(folder, confined.root);
    });
  }

  /** A text document of at most 2 MiB (FILE-1). */
  readContent(projectDirectory: string, requestPath: string, allowExternalFile?: boolean): TextContent {
    const confined = this.confine(projectDirectory, requestPath, allowExternalFile);
    return openConfined(confined, requestPath, ({ fd, stat, realPath }) => {
      requireFile(stat, requestPath);
      if (stat.size > MAX_TEXT_CONTENT_BYTES) {
        throw new RuntimeError('too_large', TEXT_CONTENT_TOO_LARGE_MESSAGE, { byteLength: stat.size, maxBytes: MAX_TEXT_CONTENT_BYTES });
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
  readBinary(projectDirectory: string, requestPath: string, offset: number, allocate: (n: number) => Buffer, allowExternalFile?: boolean, length?: number): ChunkRead {
    const confined = this.confine(projectDirectory, requestPath, allowExternalFile);
    return openConfined(confined, requestPath, ({ fd, stat, realPath }) => {
      requireFile(stat, requestPath);
      return readChunkFromOpenFile(fd, stat, realPath, offset, allocate, length);
    });
  }
}

/**
 * Opens the confined path and checks what was opened against the same FILE-3 rule the path
 * passed before (SEC-7): a folder on the way swapped for a link after the check is refused.
 */
function openConfined<T>(confined: ConfinedPath, requestPath: string, work: (opened: VerifiedOpen) => T): T {
  const refusalOf = (real: string) => refusalOfCanonical(confined.root, real, confined.allowExternal, { path: requestPath });
  return withVerifiedOpen(confined.canonical, (real) => refusalOf(real) === null, work, (refusal) => {
    throw (refusal.reason === 'refused' ? refusalOf(refusal.realPath) : null) ?? notFound('No such file or folder.', { path: requestPath });
  });
}

function requireFile(stat: fs.Stats, requestPath: string): void {
  if (stat.isDirectory()) throw invalidParams('This path is a folder, not a file.', { path: requestPath });
  if (!stat.isFile()) throw notFound('No such file.', { path: requestPath });
}

/** Reads until the buffer is full or the file ends (a file may shrink under us). */
export function readFully(fd: number, into: Buffer, position: number): number {
  let done = 0;
  while (done < into.length) {
    const n = fs.readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}
