import fs from 'node:fs';
import path from 'node:path';
import type { FileEntry } from '../../../lib/protocol/files';
import { notFound } from '../errors';
import { refusalOfCanonical } from './confinePath';
import type { SecretFiles } from './secretFiles';
import { pathThroughDescriptor, stillNamesOpenFile, withVerifiedOpen, type VerifiedOpen } from './openVerified';

const FOLDER_CHANGED_MESSAGE = 'This folder changed while it was listed. Open it again.';
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * One open folder, folders first then names (FILE-3): what the secrets policy refuses by name or
 * place (FILE-6) and links whose target may not be read are left out. Files refused only once
 * open (a second link, a private key's first bytes) stay listed, so the app can say why when one
 * is opened. Entries are read through the open descriptor, so a folder swapped for a link while
 * it is listed cannot show another folder's names (SEC-7).
 */
export function listOpenFolder(folder: VerifiedOpen, root: string, secrets: SecretFiles): FileEntry[] {
  const through = pathThroughDescriptor(folder);
  let dirents: fs.Dirent[];
  try {
    dirents = fs.readdirSync(through, { withFileTypes: true });
  } catch {
    throw notFound(FOLDER_CHANGED_MESSAGE); // Only by name (no descriptor links): the folder went away.
  }
  const entries: FileEntry[] = [];
  for (const dirent of dirents) {
    if (!secrets.servesPath(path.join(folder.realPath, dirent.name))) continue;
    const target = servableEntryStat(path.join(through, dirent.name), root, secrets);
    if (!target || (!target.isDirectory() && !target.isFile())) continue;
    const kind = target.isDirectory() ? 'directory' : 'file';
    entries.push({
      name: dirent.name,
      kind,
      size: kind === 'file' ? target.size : 0,
      modifiedAt: Math.floor(target.mtimeMs),
    });
  }
  if (!stillNamesOpenFile(folder)) throw notFound(FOLDER_CHANGED_MESSAGE);
  return entries.sort((a, b) =>
    a.kind === b.kind ? collator.compare(a.name, b.name) : a.kind === 'directory' ? -1 : 1,
  );
}

/** An entry's own stat; for a link, its target's, only when that target may be read (inside, not a secret). */
function servableEntryStat(entryPath: string, root: string, secrets: SecretFiles): fs.Stats | null {
  let own: fs.Stats;
  try {
    own = fs.lstatSync(entryPath);
  } catch {
    return null; // Removed while listing.
  }
  if (!own.isSymbolicLink()) return own;
  let target: string;
  try {
    target = fs.realpathSync.native(entryPath);
  } catch {
    return null; // A broken link.
  }
  const servable = (real: string) => refusalOfCanonical(root, real, { allowExternal: false, secrets }) === null;
  // Checked before opening too (SEC-2): opening a device or FIFO a link points to has effects of its own.
  if (!servable(target)) return null;
  return withVerifiedOpen(
    target,
    servable,
    (opened) => opened.stat,
    () => null,
  );
}
