import fs from 'node:fs';
import path from 'node:path';
import { decodePreviewPath } from '../../../lib/protocol/previewPath';
import { isInside, segmentsUnder } from '../files/pathInside';
import type { SecretFiles } from '../files/secretFiles';
import type { ResourceRoot } from './resourceRoot';

/** The names are the document's own. */
const isDocument = (segments: string[], root: ResourceRoot) =>
  segments.length === root.documentSegments.length && segments.every((s, i) => s === root.documentSegments[i]);

/**
 * PRV-2: a name starting with a dot is refused, except the hidden folders on the way to the
 * document (a site built into `.vitepress/dist` reads its own files) and the document itself.
 */
function passesDotRule(segments: string[], root: ResourceRoot): boolean {
  if (isDocument(segments, root)) return true;
  const documentSegments = root.documentSegments;
  const documentFolders = documentSegments.length - 1;
  return segments.every((segment, i) => {
    if (!segment.startsWith('.')) return true;
    return i < documentFolders && segments.slice(0, i + 1).every((s, j) => s === documentSegments[j]);
  });
}

/** The names under the root a page may read: the dot rule (PRV-2), and never a secret whatever it allows (SEC-6, FILE-6). */
function namesServable(segments: string[], root: ResourceRoot, secrets: SecretFiles): boolean {
  return passesDotRule(segments, root) && secrets.refusalOfNames(segments) === null;
}

/**
 * Whether a canonical path may be served to the preview: under the root, its names under the
 * root pass the rules (only the document itself when the page reads only itself, PRV-1), and the
 * secrets policy lets the whole canonical path through (FILE-6). Checked on the path before
 * opening and on what was opened (SEC-7).
 */
export function resourceServable(root: ResourceRoot, real: string, secrets: SecretFiles): boolean {
  if (!isInside(root.root, real) || !secrets.servesPath(real)) return false;
  const segments = segmentsUnder(root.root, real);
  return root.documentOnly ? isDocument(segments, root) : passesDotRule(segments, root);
}

/** The canonical path with its stat, if it may be served. */
function servableCanonical(
  candidate: string,
  root: ResourceRoot,
  secrets: SecretFiles,
): { real: string; stat: fs.Stats } | null {
  try {
    const real = fs.realpathSync.native(candidate);
    return resourceServable(root, real, secrets) ? { real, stat: fs.statSync(real) } : null;
  } catch {
    return null;
  }
}

/**
 * PRV-2: maps a requested URL path onto a file under the preview's root, or null for 404.
 * Refuses `..`, backslash, colon and NUL after decoding; serves `index.html` for a folder; follows
 * symlinks and refuses any that lead outside the root; refuses dot names (see passesDotRule) and
 * what the secrets policy refuses (FILE-6). The answer is a path to open and check again (`resourceServable`), not a
 * promise that it still holds the same file.
 */
export function resolvePreviewResource(root: ResourceRoot, rawPath: string, secrets: SecretFiles): string | null {
  const segments = decodePreviewPath(rawPath);
  if (!segments) return null;
  const wanted = root.documentOnly && segments.length === 0 ? root.documentSegments : segments;
  if (root.documentOnly ? !isDocument(wanted, root) : !namesServable(wanted, root, secrets)) return null;
  let found = servableCanonical(path.join(root.root, ...wanted), root, secrets);
  if (found?.stat.isDirectory()) found = servableCanonical(path.join(found.real, 'index.html'), root, secrets);
  return found?.stat.isFile() ? found.real : null;
}

/** A folder the page asked into, canonical, when the page may read there (for change watching); else null. */
export function servableFolder(root: ResourceRoot, rawPath: string, secrets: SecretFiles): string | null {
  const segments = decodePreviewPath(rawPath);
  if (!segments || root.documentOnly) return null;
  const folder = servableCanonical(path.join(root.root, ...segments.slice(0, -1)), root, secrets);
  return folder?.stat.isDirectory() ? folder.real : null;
}
