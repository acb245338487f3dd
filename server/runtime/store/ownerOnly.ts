import fs from 'node:fs';
import path from 'node:path';

/**
 * SEC-8: the data folder holds command output and message text in clear, so everything the
 * runtime creates there is readable by its owner only. Modes are given explicitly where files
 * are created rather than through the process umask, which the user's commands inherit.
 */
export const OWNER_ONLY_DIR_MODE = 0o700;
export const OWNER_ONLY_FILE_MODE = 0o600;

/** Group and other permission bits. */
const SHARED_BITS = 0o077;

/** Makes the folder (and missing parents) owner-only, and strips group and other bits from what is already in it. */
export function makeOwnerOnlyFolder(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: OWNER_ONLY_DIR_MODE });
  // Windows has no such mode bits; its per-user folders already keep other users out.
  if (process.platform === 'win32') return;
  restrict(dir, fs.lstatSync(dir));
}

function restrict(entry: string, stat: fs.Stats): void {
  // A symlink is never followed: its target may be a file of the user's elsewhere.
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    if ((stat.mode & 0o777) !== OWNER_ONLY_DIR_MODE) fs.chmodSync(entry, OWNER_ONLY_DIR_MODE);
    for (const name of fs.readdirSync(entry)) {
      const child = path.join(entry, name);
      restrict(child, fs.lstatSync(child));
    }
    return;
  }
  // Files keep the owner's own bits (an executable stays executable) and lose everyone else's.
  if ((stat.mode & SHARED_BITS) !== 0) fs.chmodSync(entry, stat.mode & 0o777 & ~SHARED_BITS);
}
