import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { OWNER_ONLY_DIR_MODE, OWNER_ONLY_FILE_MODE } from './ownerOnly';

/**
 * Writes `data` to a fresh owner-only (0600) file beside `target`, flushes it and renames it over
 * `target`, making the folder (0700) when missing (SEC-8): a crash leaves the old content or the
 * new, never half of either.
 */
export function writeOwnerOnlyFileAtomically(target: string, data: string): void {
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: OWNER_ONLY_DIR_MODE });
  const stage = `${target}.${crypto.randomUUID()}.tmp`;
  const fd = fs.openSync(stage, 'wx', OWNER_ONLY_FILE_MODE);
  try {
    fs.writeSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(stage, target);
}
