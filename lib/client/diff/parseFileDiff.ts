import { parsePatch } from 'diff';

export type DiffLineKind = 'context' | 'added' | 'removed' | 'hunk' | 'note';

/** One line of a file's diff as the viewer shows it; `text` is without its `+`/`-`/` ` sign. */
export interface DiffLine {
  kind: DiffLineKind;
  text: string;
  /** Line number in the old file (context and removed lines). */
  oldLine: number | null;
  /** Line number in the new file (context and added lines). */
  newLine: number | null;
}

export interface ParsedFileDiff {
  lines: DiffLine[];
  added: number;
  removed: number;
  /**
   * Characters of the input not parsed yet: the cut last line of a diff that is still being
   * read, shown once the rest arrives. Zero when the input is the whole diff.
   */
  pendingChars: number;
  /** Set when the text is not a unified diff this parser understands; `lines` then hold it as plain notes. */
  unparsed: string | null;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/;

/**
 * A diff's prefix made parseable: cut at its last line break, and its last hunk's header counts
 * set to the lines that are here, so the first lines of a long hunk show before the rest is read.
 */
function parseablePrefix(text: string): string {
  const whole = text.slice(0, text.lastIndexOf('\n') + 1);
  const headerAt = whole.startsWith('@@ ') ? 0 : whole.lastIndexOf('\n@@ ') + 1;
  if (headerAt === 0 && !whole.startsWith('@@ ')) return whole;
  const headerEnd = whole.indexOf('\n', headerAt);
  const header = HUNK_HEADER.exec(whole.slice(headerAt, headerEnd));
  if (!header) return whole;
  let oldLines = 0;
  let newLines = 0;
  for (const line of whole.slice(headerEnd + 1).split('\n')) {
    if (line.startsWith('-')) oldLines++;
    else if (line.startsWith('+')) newLines++;
    else if (line.startsWith(' ')) {
      oldLines++;
      newLines++;
    }
  }
  return `${whole.slice(0, headerAt)}@@ -${header[1]},${oldLines} +${header[2]},${newLines} @@${header[3]}${whole.slice(headerEnd)}`;
}

function hunkLines(hunk: {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}): DiffLine[] {
  const lines: DiffLine[] = [
    {
      kind: 'hunk',
      text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
      oldLine: null,
      newLine: null,
    },
  ];
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  for (const line of hunk.lines) {
    const sign = line[0];
    const text = line.slice(1);
    if (sign === '+') lines.push({ kind: 'added', text, oldLine: null, newLine: newLine++ });
    else if (sign === '-') lines.push({ kind: 'removed', text, oldLine: oldLine++, newLine: null });
    else if (sign === '\\') lines.push({ kind: 'note', text: line, oldLine: null, newLine: null });
    else lines.push({ kind: 'context', text, oldLine: oldLine++, newLine: newLine++ });
  }
  return lines;
}

/**
 * Parses one file's unified diff (`---`/`+++`/`@@` hunks) with `diff`'s parsePatch (TL-1). When
 * `complete` is false the text is a prefix of the diff: its whole lines are parsed (the last hunk
 * as far as it goes) and the cut line is counted in `pendingChars`; the viewer says there is
 * more, never dropping lines silently.
 */
export function parseFileDiff(text: string, complete: boolean): ParsedFileDiff {
  const parsedText = complete ? text : parseablePrefix(text);
  const pendingChars = complete ? 0 : text.length - (text.lastIndexOf('\n') + 1);
  let patches: ReturnType<typeof parsePatch>;
  try {
    patches = parsePatch(parsedText);
  } catch (error) {
    const lines = text
      .split('\n')
      .map((line): DiffLine => ({ kind: 'note', text: line, oldLine: null, newLine: null }));
    return {
      lines,
      added: 0,
      removed: 0,
      pendingChars: 0,
      unparsed: error instanceof Error ? error.message : String(error),
    };
  }
  const lines = patches.flatMap((patch) => patch.hunks.flatMap(hunkLines));
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (line.kind === 'added') added++;
    else if (line.kind === 'removed') removed++;
  }
  return { lines, added, removed, pendingChars, unparsed: null };
}
