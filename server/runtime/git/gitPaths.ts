import fs from 'node:fs';
import path from 'node:path';
import { invalidParams } from '../errors';
import { refusalOfCanonical } from '../files/confinePath';
import type { SecretFiles } from '../files/secretFiles';

/**
 * A path of a git call, judged as the file browser judges one (GIT-7, FILE-3, FILE-6): relative,
 * `/`-separated, no `..`, its names past the secrets policy, and what exists of it (the file, or
 * for a deleted one the nearest folder above) canonical inside the project and not refused. A
 * file that exists must also pass the checks of an open file (a private key's first bytes, more
 * than one link). Answers the path as git takes it, relative to the project folder.
 */
export function confineGitPath(root: string, requestPath: string, secrets: SecretFiles): string {
  if (requestPath.includes('\0')) throw invalidParams('A path cannot contain a NUL character.');
  if (requestPath.includes('\\')) throw invalidParams('Paths use "/" as separator; a backslash is not allowed.');
  if (path.isAbsolute(requestPath))
    throw invalidParams('A path is relative to the project folder; absolute paths are not allowed.');
  const segments = requestPath.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw invalidParams('A path cannot contain "..".');
  if (segments.length === 0) throw invalidParams('Name a file of the project, not the project folder itself.');
  const asAsked = secrets.refusalOfNames(segments, { path: requestPath });
  if (asAsked) throw asAsked;

  const existing = nearestExisting(root, segments);
  const refusal = refusalOfCanonical(
    root,
    existing.canonical,
    { allowExternal: false, secrets },
    { path: requestPath },
  );
  if (refusal) throw refusal;
  if (existing.whole) refuseOpenFile(existing.canonical, secrets, requestPath);
  return segments.join('/');
}

/** The canonical form of the path, or of the nearest folder above it that exists (a deleted file's). */
function nearestExisting(root: string, segments: readonly string[]): { canonical: string; whole: boolean } {
  for (let count = segments.length; count >= 0; count--) {
    try {
      return {
        canonical: fs.realpathSync.native(path.join(root, ...segments.slice(0, count))),
        whole: count === segments.length,
      };
    } catch {
      // Not there (deleted, or never was): try the folder above.
    }
  }
  return { canonical: root, whole: false };
}

function refuseOpenFile(canonical: string, secrets: SecretFiles, requestPath: string): void {
  let fd: number;
  try {
    fd = fs.openSync(canonical, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch {
    return; // Unreadable here: git will say what it makes of it.
  }
  try {
    const refusal = secrets.refusalOfOpenFile(fd, fs.fstatSync(fd), { path: requestPath });
    if (refusal) throw refusal;
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether a changed path (relative to the project) may be named to the network at all (GIT-7). */
export function gitPathIsServed(root: string, relativePath: string, secrets: SecretFiles): boolean {
  return secrets.refusalOfNames(relativePath.split('/')) === null && secrets.servesPath(path.join(root, relativePath));
}
