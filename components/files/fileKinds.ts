import { languageForPath } from '../../lib/highlight/languages';

export type ViewerKind = 'image' | 'pdf' | 'audio' | 'video' | 'markdown' | 'html' | 'source' | 'binary';

const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|x-sh))/;

/** Which viewer opens a file (FILE-4), from the runtime's content type and the name. */
export function viewerKindOf(mimeType: string, path: string): ViewerKind {
  if (mimeType === 'image/svg+xml') return 'source'; // NOTE: SVG can carry script; shown as text, never as a document.
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType === 'application/pdf') return 'pdf';
  if (mimeType.startsWith('audio/')) return 'audio';
  if (mimeType.startsWith('video/')) return 'video';
  if (mimeType === 'text/markdown') return 'markdown';
  if (mimeType === 'text/html') return 'html';
  if (TEXT_TYPES.test(mimeType) || languageForPath(path)) return 'source';
  return 'binary';
}

/** A file that is not known to be text may still be: no NUL in its first 8 KiB. */
export async function looksLikeText(blob: Blob): Promise<boolean> {
  const head = new Uint8Array(await blob.slice(0, 8192).arrayBuffer());
  return !head.includes(0);
}
