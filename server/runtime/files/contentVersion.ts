import crypto from 'node:crypto';
import type fs from 'node:fs';

/**
 * A file's version as the client pins it (FILE-2): a hash of canonical path, size and
 * modification time, recomputed at every read so a rewrite between two chunks shows.
 */
export function contentVersionOf(canonical: string, stat: Pick<fs.Stats, 'size' | 'mtimeMs'>): string {
  return crypto.createHash('sha256').update(`${canonical}\0${stat.size}\0${stat.mtimeMs}`).digest('hex').slice(0, 32);
}
