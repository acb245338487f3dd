import crypto from 'node:crypto';
import fs from 'node:fs';
import { FILE_CHUNK_BYTES, type FileChunk } from '../../../lib/protocol/files';
import { invalidParams } from '../errors';
import { contentVersionOf } from './contentVersion';
import { mimeTypeForPath } from '../../../lib/protocol/mimeTypes';

/** A chunk's header; its bytes are in the buffer `allocate` handed out. */
export type ChunkRead = Omit<FileChunk, 'dataBase64'> & { bytes: Buffer };

/**
 * One chunk of up to 4 MiB from any `offset` of an open file (FILE-2), with its SHA-256 and the
 * file's version. `files.readBinary` and preview resources (a seeking video starts mid-file) both
 * read here; `allocate` lets the caller read straight into a binary frame.
 */
export function readChunkFromOpenFile(
  fd: number,
  stat: fs.Stats,
  canonicalPath: string,
  offset: number,
  allocate: (n: number) => Buffer,
  maxBytes = FILE_CHUNK_BYTES,
): ChunkRead {
  if (offset > stat.size)
    throw invalidParams(`Offset ${offset} is past the end of the file (${stat.size} bytes).`, {
      offset,
      size: stat.size,
    });
  const bytes = allocate(Math.min(maxBytes, FILE_CHUNK_BYTES, stat.size - offset));
  const count = readFully(fd, bytes, offset);
  const data = bytes.subarray(0, count);
  const end = offset + count;
  return {
    offset,
    nextOffset: end >= stat.size ? null : end,
    bytes: data,
    byteCount: count,
    size: stat.size,
    contentVersion: contentVersionOf(canonicalPath, stat),
    modifiedAt: Math.floor(stat.mtimeMs),
    mimeType: mimeTypeForPath(canonicalPath),
    sha256: crypto.createHash('sha256').update(data).digest('hex'),
  };
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
