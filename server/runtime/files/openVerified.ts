import fs from 'node:fs';
import path from 'node:path';

/** A file or folder that is open, and where it really is. */
export interface VerifiedOpen {
  fd: number;
  /** The canonical path of what the descriptor holds, read after opening. */
  realPath: string;
  stat: fs.Stats;
}

export type OpenRefusal = { reason: 'missing' } | { reason: 'refused'; realPath: string };

/**
 * NOTE: O_NONBLOCK so that a FIFO in a project cannot hang the runtime's open; it changes nothing
 * for reads of regular files. O_NOFOLLOW refuses a last name swapped for a link after it was resolved.
 */
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/** Linux names every open descriptor's file under /proc: the kernel's answer, not a path walked again. */
const DESCRIPTOR_LINKS = '/proc/self/fd';
const descriptorLinksAvailable = process.platform === 'linux' && fs.existsSync(DESCRIPTOR_LINKS);

/**
 * SEC-7: opens a path that was resolved and checked by name, then checks what was actually opened.
 * A folder on the way may have been swapped for a symlink between the check and the open, so the
 * check is repeated on the opened descriptor's own path (`locateOpenFile`). `allowed` is the
 * caller's rule (root and hidden names); `work` runs with the descriptor open and `refuse`
 * answers for what may not be read.
 */
export function withVerifiedOpen<T>(
  candidate: string,
  allowed: (realPath: string) => boolean,
  work: (opened: VerifiedOpen) => T,
  refuse: (refusal: OpenRefusal) => T,
): T {
  let fd: number;
  try {
    fd = fs.openSync(candidate, OPEN_FLAGS);
  } catch {
    return refuse({ reason: 'missing' });
  }
  try {
    const stat = fs.fstatSync(fd);
    const realPath = locateOpenFile(fd, candidate, stat);
    if (realPath === null) return refuse({ reason: 'missing' });
    if (!allowed(realPath)) return refuse({ reason: 'refused', realPath });
    return work({ fd, realPath, stat });
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A path that reaches the open folder itself, not whatever has its name now: on Linux its
 * descriptor link, so listing it and the entries under it cannot be redirected (SEC-7).
 * Elsewhere the folder's real path, checked again by the caller after use.
 */
export function pathThroughDescriptor(opened: VerifiedOpen): string {
  return descriptorLinksAvailable ? path.join(DESCRIPTOR_LINKS, String(opened.fd)) : opened.realPath;
}

/**
 * A second descriptor of the opened file that outlives `withVerifiedOpen`: on Linux opened through
 * the first one's descriptor link (the same file, whatever its name is now); elsewhere by its real
 * path, kept only when it is still the same device and inode (SEC-7).
 */
export function reopenDescriptor(opened: VerifiedOpen): number {
  // NOTE: a descriptor link is a link by nature, so it is opened without O_NOFOLLOW.
  const fd = descriptorLinksAvailable
    ? fs.openSync(pathThroughDescriptor(opened), OPEN_FLAGS & ~(fs.constants.O_NOFOLLOW ?? 0))
    : fs.openSync(opened.realPath, OPEN_FLAGS);
  const now = fs.fstatSync(fd);
  if (now.dev !== opened.stat.dev || now.ino !== opened.stat.ino) {
    fs.closeSync(fd);
    throw new Error('The file was replaced while it was opened.');
  }
  return fd;
}

/** Whether `realPath` still names the opened file (the fallback check where the kernel cannot say). */
export function stillNamesOpenFile(opened: VerifiedOpen): boolean {
  return descriptorLinksAvailable || namesSameFile(opened.realPath, opened.stat);
}

/** The canonical path of an open descriptor, or null when it cannot be told (or the file was deleted). */
function locateOpenFile(fd: number, openedAs: string, stat: fs.Stats): string | null {
  if (stat.nlink === 0) return null;
  return descriptorLinksAvailable ? locateByDescriptorLink(fd) : locateByRealpath(openedAs, stat);
}

/** Linux: the kernel's own name for what `fd` holds. */
export function locateByDescriptorLink(fd: number): string | null {
  try {
    const real = fs.readlinkSync(path.join(DESCRIPTOR_LINKS, String(fd)));
    return path.isAbsolute(real) ? real : null;
  } catch {
    return null;
  }
}

/**
 * Elsewhere: the path resolved again after opening, kept only when it names the same device and
 * inode as the descriptor, so a swap between the open and this check refuses the read.
 */
export function locateByRealpath(openedAs: string, stat: fs.Stats): string | null {
  let real: string;
  try {
    real = fs.realpathSync.native(openedAs);
  } catch {
    return null;
  }
  return namesSameFile(real, stat) ? real : null;
}

function namesSameFile(candidate: string, stat: fs.Stats): boolean {
  try {
    const now = fs.statSync(candidate);
    return now.dev === stat.dev && now.ino === stat.ino;
  } catch {
    return false;
  }
}
