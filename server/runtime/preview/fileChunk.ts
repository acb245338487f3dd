import fs from 'node:fs';
import { readChunkFromOpenFile, type ChunkRead } from '../files/readChunk';

/** A preview resource's chunk: its header, and its bytes in the buffer `allocate` handed out. */
export interface ReadChunk {
  chunk: Omit<ChunkRead, 'bytes'>;
  bytes: Buffer;
}

/**
 * One chunk of a preview resource from any offset (FILE-2), so a ranged read (a seeking video)
 * starts where it is asked to. The path was checked against the preview's root (PRV-2).
 */
export function readFileChunk(filePath: string, offset: number, allocate: (n: number) => Buffer = Buffer.allocUnsafe): ReadChunk {
  const fd = fs.openSync(filePath, 'r');
  try {
    const { bytes, ...chunk } = readChunkFromOpenFile(fd, fs.fstatSync(fd), filePath, offset, allocate);
    return { chunk, bytes };
  } finally {
    fs.closeSync(fd);
  }
}
