/**
 * Stored bytes cut into lines at their newlines (PWA-2), each with the byte range it came from.
 * A newline byte never occurs inside a UTF-8 character, so every line decodes on its own.
 */
import type { SourceLine } from './terminalLines';

const NEWLINE = 10;

/**
 * The lines of `bytes`, which start at output offset `offset` on a line start. With `unfinished`
 * the bytes end where a command is still writing: a UTF-8 character cut by the end waits for the
 * rest of its bytes instead of showing as a replacement character.
 */
export function splitSourceLines(bytes: Uint8Array, offset: number, unfinished: boolean): SourceLine[] {
  const lines: SourceLine[] = [];
  const decoder = new TextDecoder();
  let lineStart = 0;
  while (lineStart < bytes.length) {
    let lineEnd = bytes.indexOf(NEWLINE, lineStart);
    const newline = lineEnd !== -1;
    if (!newline) lineEnd = bytes.length;
    const text = decoder.decode(bytes.subarray(lineStart, lineEnd), { stream: !newline && unfinished });
    lines.push({ offset: offset + lineStart, end: offset + lineEnd + (newline ? 1 : 0), text, newline });
    lineStart = lineEnd + 1;
  }
  return lines;
}
