/**
 * Where a link or image of a project's Markdown file points (FILE-3, FILE-4): relative addresses
 * resolve against the document's own folder inside the project, a leading `/` against the
 * project's root, and anything that climbs above the root is refused (it would name a file
 * outside the project). http(s) addresses stay external (SEC-3, lib/links/safeLinks.ts).
 */
export type ProjectLink =
  | { kind: 'external'; href: string }
  | { kind: 'anchor' }
  | { kind: 'file'; path: string }
  | { kind: 'refused'; reason: string };

export const OUTSIDE_PROJECT = 'This link leads outside the project.';

/** `href` as found in the Markdown of the file at `fromPath` (a path relative to the project root). */
export function resolveProjectLink(fromPath: string, href: string): ProjectLink {
  const trimmed = href.trim();
  if (/^https?:/i.test(trimmed)) return { kind: 'external', href: trimmed };
  if (trimmed.startsWith('#')) return { kind: 'anchor' };
  // Scheme-relative, other schemes and Windows drive paths never name a project file.
  if (trimmed.startsWith('//') || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(trimmed) || trimmed.includes('\\'))
    return { kind: 'refused', reason: 'This link is not a project file.' };
  const withoutSuffix = trimmed.replace(/[?#].*$/, '');
  if (withoutSuffix === '') return { kind: 'anchor' };
  let decoded: string;
  try {
    decoded = decodeURIComponent(withoutSuffix);
  } catch {
    return { kind: 'refused', reason: 'This link is not a valid address.' };
  }
  const fromRoot = decoded.startsWith('/');
  const parts = fromRoot ? [] : fromPath.split('/').slice(0, -1).filter(Boolean);
  for (const segment of decoded.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) return { kind: 'refused', reason: OUTSIDE_PROJECT };
      parts.pop();
    } else parts.push(segment);
  }
  return parts.length === 0
    ? { kind: 'refused', reason: 'This link names the project folder itself.' }
    : { kind: 'file', path: parts.join('/') };
}

/** Whether a project file opens as an HTML preview rather than in the file viewer (FILE-4). */
export const opensAsPreview = (path: string) => /\.html?$/i.test(path);
