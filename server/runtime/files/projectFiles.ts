import fs from 'node:fs';
import path from 'node:path';
import type { FileEntry } from '../../../lib/protocol/files';
import { MAX_TEXT_CONTENT_BYTES, TEXT_CONTENT_TOO_LARGE_MESSAGE } from '../../../lib/protocol/files';
import type { Project } from '../../../lib/protocol/rows';
import { invalidParams, notFound, RuntimeError } from '../errors';
import { confinePath, linkTargetServable, type ConfinedPath } from './confinePath';
import { contentVersionOf } from './contentVersion';
import { isHiddenSecretName } from './hiddenSecrets';
import { mimeTypeForPath } from './mimeTypes';
import { readChunkFromOpenFile, type ChunkRead } from './readChunk';

export interface TextContent {
  text: string;
  byteLength: number;
  contentVersion: string;
  modifiedAt: number;
  mimeType: string;
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * The project folders as the network sees them (FILE-1…FILE-3): every path goes through
 * `confinePath` first, then is opened and checked again against what was resolved.
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
    const { canonical, root, stat } = this.confine(projectDirectory, requestPath);
    if (!stat.isDirectory()) throw invalidParams('This path is a file, not a folder.', { path: requestPath, kind: 'file' });
    const entries: FileEntry[] = [];
    for (const dirent of fs.readdirSync(canonical, { withFileTypes: true })) {
      if (isHiddenSecretName(dirent.name)) continue;
      const full = path.join(canonical, dirent.name);
      let target: fs.Stats;
      try {
        if (dirent.isSymbolicLink() && !linkTargetServable(root, fs.realpathSync.native(full))) continue;
        target = fs.statSync(full);
      } catch {
        continue; // A broken link or an entry removed while listing.
      }
      if (!target.isDirectory() && !target.isFile()) continue;
      const kind = target.isDirectory() ? 'directory' : 'file';
      entries.push({ name: dirent.name, kind, size: kind === 'file' ? target.size : 0, modifiedAt: Math.floor(target.mtimeMs) });
    }
    return entries.sort((a, b) => (a.kind === b.kind ? collator.compare(a.name, b.name) : a.kind === 'directory' ? -1 : 1));
  }

  /** A text document of at most 2 MiB (FILE-1). */
  readContent(projectDirectory: string, requestPath: string, allowExternalFile?: boolean): TextContent {
    const confined = this.confine(projectDirectory, requestPath, allowExternalFile);
    return withOpenFile(confined, requestPath, (fd, stat) => {
      if (stat.size > MAX_TEXT_CONTENT_BYTES) {
        throw new RuntimeError('too_large', TEXT_CONTENT_TOO_LARGE_MESSAGE, { byteLength: stat.size, maxBytes: MAX_TEXT_CONTENT_BYTES });
      }
      const bytes = Buffer.allocUnsafe(stat.size);
      const read = readFully(fd, bytes, 0);
      return {
        text: bytes.subarray(0, read).toString('utf8'),
        byteLength: read,
        contentVersion: contentVersionOf(confined.canonical, stat),
        modifiedAt: Math.floor(stat.mtimeMs),
        mimeType: mimeTypeForPath(confined.canonical),
      };
    });
  }

  /** Up to 4 MiB from `offset`, read into `allocate(n)` (a pooled frame), with its SHA-256 (FILE-2). */
  readBinary(projectDirectory: string, requestPath: string, offset: number, allocate: (n: number) => Buffer, allowExternalFile?: boolean, length?: number): ChunkRead {
    const confined = this.confine(projectDirectory, requestPath, allowExternalFile);
    return withOpenFile(confined, requestPath, (fd, stat) => {
      return readChunkFromOpenFile(fd, stat, confined.canonical, offset, allocate, length);
    });
  }
}

/**
 * Opens the resolved file without following a final symlink and checks it is the same inode that
 * was resolved, so a link swapped in after the check cannot redirect the read (SEC-2).
 */
function withOpenFile<T>(confined: ConfinedPath, requestPath: string, work: (fd: number, stat: fs.Stats) => T): T {
  if (confined.stat.isDirectory()) throw invalidParams('This path is a folder, not a file.', { path: requestPath });
  let fd: number;
  try {
    fd = fs.openSync(confined.canonical, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch {
    throw notFound('No such file.', { path: requestPath });
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.ino !== confined.stat.ino || stat.dev !== confined.stat.dev || !stat.isFile()) throw notFound('No such file.', { path: requestPath });
    return work(fd, stat);
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads until the buffer is full or the file ends (a file may shrink under us). */
function readFully(fd: number, into: Buffer, position: number): number {
  let done = 0;
  while (done < into.length) {
    const n = fs.readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}
