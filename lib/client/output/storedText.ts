/**
 * What Copy puts on the clipboard (UX-2): the stored bytes behind the rendered lines, not the
 * text a terminal shows, so a copied progress bar or coloured log is exactly what the command
 * printed. A row rewritten later (cursor-up) reaches to the bytes that rewrote it.
 */
import type { TerminalLine } from '../../terminal/terminalLines';

export type BytesBetween = (from: number, to: number) => Uint8Array | null;

/** The bytes of lines[first..last] decoded as UTF-8, or null when they are not all held. */
export function storedTextOf(
  bytesBetween: BytesBetween,
  lines: readonly TerminalLine[],
  first: number,
  last: number,
): string | null {
  if (lines.length === 0 || first > last) return null;
  let from = Number.MAX_SAFE_INTEGER;
  let to = 0;
  for (let i = Math.max(0, first); i <= Math.min(last, lines.length - 1); i++) {
    from = Math.min(from, lines[i]!.offset);
    to = Math.max(to, lines[i]!.end);
  }
  const bytes = bytesBetween(from, to);
  return bytes ? new TextDecoder().decode(bytes) : null;
}
