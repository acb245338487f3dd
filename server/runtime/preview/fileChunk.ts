import crypto from 'node:crypto';
import fs from 'node:fs';
import { FILE_CHUNK_BYTES, type FileChunk } from '../../../lib/protocol/files';
import { invalidParams } from '../errors';
import { mimeTypeOf } from './mimeTypes';

export interface ReadChunk {
  chunk: Omit<FileChunk, 'dataBase64'>;
  bytes: Buffer;
}

/** FILE-2: a hash of path, size and mtime, recomputed at every read. */
export function contentVersionOf(filePath: string, stat: fs.Stats): string {
  return crypto.createHash('sha256').update(`${filePath}\0${stat.size}\0${stat.mtimeMs}`).digest('hex').slice(0, 32);
}

/**
 * One chunk of up to 4 MiB from `offset` (FILE-2), with its SHA-256. Any offset up to the size is
 * accepted, so a ranged read (a seeking video) starts where it is asked to. `allocate` lets the
 * caller read straight into a binary frame.
 */
export function readFileChunk(filePath: string, offset: number, allocate: (n: number) => Buffer = Buffer.allocUnsafe): ReadChunk {
  const fd = fs.openSync(filePath, 'r');
  try {
    const stat = fs.fstatSync(fd);
    if (offset > stat.size) throw invalidParams(`Offset ${offset} is past the end of the file (${stat.size} bytes).`, { size: stat.size });
    const wanted = Math.min(FILE_CHUNK_BYTES, stat.size - offset);
    const target = allocate(wanted);
    let read = 0;
    while (read < wanted) {
      const n = fs.readSync(fd, target, read, wanted - read, offset + read);
      if (n === 0) break;
      read += n;
    }
    const bytes = target.subarray(0, read);
    const end = offset + read;
    return {
      bytes,
      chunk: {
        offset,
        nextOffset: end >= stat.size ? null : end,
        byteCount: read,
        size: stat.size,
        contentVersion: contentVersionOf(filePath, stat),
        modifiedAt: stat.mtimeMs,
        mimeType: mimeTypeOf(filePath),
        sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
      },
    };
  } finally {
    fs.closeSync(fd);
  }
}
