import fs from 'node:fs';
import path from 'node:path';
import { decodePreviewPath } from '../../../lib/protocol/previewPath';
import { isInside, type ResourceRoot } from './resourceRoot';

/**
 * PRV-2: a name starting with a dot is refused, except the hidden folders on the way to the
 * document (a site built into `.vitepress/dist` reads its own files) and the document itself.
 */
function passesDotRule(segments: string[], documentSegments: string[]): boolean {
  if (segments.length === documentSegments.length && segments.every((s, i) => s === documentSegments[i])) return true;
  const documentFolders = documentSegments.length - 1;
  return segments.every((segment, i) => {
    if (!segment.startsWith('.')) return true;
    return i < documentFolders && segments.slice(0, i + 1).every((s, j) => s === documentSegments[j]);
  });
}

function realPathOrNull(candidate: string): string | null {
  try {
    return fs.realpathSync(candidate);
  } catch {
    return null;
  }
}

/** The canonical path, if it stays under the root and its canonical name passes the dot rule too. */
function canonicalUnderRoot(candidate: string, root: ResourceRoot): { real: string; stat: fs.Stats } | null {
  const real = realPathOrNull(candidate);
  if (!real || !isInside(root.root, real)) return null;
  const relative = path.relative(root.root, real);
  const segments = relative === '' ? [] : relative.split(path.sep);
  if (!passesDotRule(segments, root.documentSegments)) return null;
  try {
    return { real, stat: fs.statSync(real) };
  } catch {
    return null;
  }
}

/**
 * PRV-2: maps a requested URL path onto a file under the preview's root, or null for 404.
 * Refuses `..`, backslash, colon and NUL after decoding; serves `index.html` for a folder; follows
 * symlinks and refuses any that lead outside the root; refuses dot names (see passesDotRule).
 */
export function resolvePreviewResource(root: ResourceRoot, rawPath: string): string | null {
  const segments = decodePreviewPath(rawPath);
  if (!segments) return null;
  const wanted = root.documentOnly && segments.length === 0 ? root.documentSegments : segments;
  if (root.documentOnly && !(wanted.length === root.documentSegments.length && wanted.every((s, i) => s === root.documentSegments[i]))) {
    return null;
  }
  if (!passesDotRule(wanted, root.documentSegments)) return null;
  let found = canonicalUnderRoot(path.join(root.root, ...wanted), root);
  if (found?.stat.isDirectory()) found = canonicalUnderRoot(path.join(found.real, 'index.html'), root);
  return found?.stat.isFile() ? found.real : null;
}
