/**
 * The syntactic half of the PRV-2 path check, shared by the runtime (before it resolves anything
 * on disk) and the app (before it lets a link into the preview history).
 *
 * `rawPath` is a URL path as the previewed page asked for it, percent-encoded, starting with `/`.
 * It is decoded once; the decoded path is refused when a segment is `..`, or it holds a backslash, a colon or NUL.
 * Answers the path's segments (empty for the root), or null when refused.
 */
export function decodePreviewPath(rawPath: string): string[] | null {
  if (!rawPath.startsWith('/')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  if (decoded.includes('\\') || decoded.includes(':') || decoded.includes('\0')) return null;
  const segments = decoded.split('/').filter((segment) => segment !== '' && segment !== '.');
  // A name like `a..b.js` is harmless; only a `..` segment climbs.
  return segments.includes('..') ? null : segments;
}
