import crypto from 'node:crypto';
import fs from 'node:fs';

const CHUNK_BYTES = 4 * 1024 * 1024;

/** SHA-256 of a whole file, read in large chunks (used outside every timed interval). */
export function sha256OfFile(file: string): string {
  const hash = crypto.createHash('sha256');
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const fd = fs.openSync(file, 'r');
  try {
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      hash.update(chunk.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}
