/** Characters one shown line may cost on average before the cut falls mid-line (a minified blob is one line). */
const CHARS_PER_LINE = 400;

/**
 * Where the first `lines` lines of `text` end, but never past `lines * 400` characters, so a
 * 10 MiB single-line result still shows in small pieces. Counts by indexOf, not by splitting.
 */
export function endOfLines(text: string, lines: number): number {
  const limit = Math.min(text.length, lines * CHARS_PER_LINE);
  let at = 0;
  for (let n = 0; n < lines; n++) {
    const next = text.indexOf('\n', at);
    if (next === -1 || next >= limit) return limit;
    at = next + 1;
  }
  return Math.min(at, limit);
}

/** Lines in `text` from `from` on (a trailing line break does not start another line). */
export function linesAfter(text: string, from: number): number {
  if (from >= text.length) return 0;
  let count = 1;
  for (let at = text.indexOf('\n', from); at !== -1 && at < text.length - 1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}
