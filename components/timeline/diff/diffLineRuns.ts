import type { DiffLine } from '../../../lib/client/diff/parseFileDiff';
import { DECORATION_BITS, type TokenLine } from '../../../lib/highlight/tokens';

const SIGN: Record<DiffLine['kind'], string> = { added: '+', removed: '-', context: ' ', hunk: ' ', note: ' ' };

/** The gutter as one run of text: both line numbers padded to `numberWidth` and the sign (fewer elements per line, TL-4). */
export function diffGutter(line: DiffLine, numberWidth: number): string {
  return `${String(line.oldLine ?? '').padStart(numberWidth)} ${String(line.newLine ?? '').padStart(numberWidth)} ${SIGN[line.kind]} `;
}

/**
 * A highlighted line as few runs as look the same (TL-4): blank tokens join the run before them
 * (their colour does not show) and neighbours of one style merge. A diff line of a dozen tokens
 * becomes a handful of runs, so a 50-line diff mounts, styles, lays out and paints half the
 * elements it would with a span per token.
 */
export function tokenRuns(tokens: TokenLine): TokenLine {
  const runs: TokenLine = [];
  for (const [text, color, fontStyle] of tokens) {
    const last = runs.at(-1);
    const blank = (fontStyle & DECORATION_BITS) === 0 && text.trim() === '';
    if (last && (blank || (last[1] === color && last[2] === fontStyle))) last[0] += text;
    else runs.push([text, color, fontStyle]);
  }
  return runs;
}
