import type { VerifiedChunk } from '../../lib/client/verifiedChunks';
import { MAX_TEXT_VIEW_BYTES } from '../../lib/highlight/limits';
import { viewerKindOf } from './fileKinds';

/** The whole lines of a source file's first chunk, shown while the rest is read (PERF-6). */
export interface FileHead {
  kind: 'source' | 'html';
  text: string;
}

/**
 * A source file's first chunk cut before its last line break, so every line shown is whole and
 * the whole file's text starts with it; null for a file another viewer shows, or no line break.
 */
export function headOf(chunk: VerifiedChunk, path: string): FileHead | null {
  const kind = viewerKindOf(chunk.header.mimeType, path);
  if ((kind !== 'source' && kind !== 'html') || chunk.header.size > MAX_TEXT_VIEW_BYTES) return null;
  const text = new TextDecoder().decode(chunk.data);
  const lineBreak = text.lastIndexOf('\n');
  const lastLineEnd = lineBreak > 0 && text[lineBreak - 1] === '\r' ? lineBreak - 1 : lineBreak;
  return lastLineEnd > 0 ? { kind, text: text.slice(0, lastLineEnd) } : null;
}
