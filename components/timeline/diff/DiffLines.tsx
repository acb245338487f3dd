'use client';
import './diff.css';
import { useMemo, useState, type ReactNode } from 'react';
import { parseFileDiff, type DiffLine } from '../../../lib/client/diff/parseFileDiff';
import { languageForPath } from '../../../lib/highlight/languages';
import { endOfLines, linesAfter } from '../textPages';
import { DiffLineView } from './DiffLineView';
import { FIRST_DIFF_LINES, HEADER_LINES, MORE_DIFF_LINES } from './diffPaging';
import { useDiffHighlight } from './useDiffHighlight';

/** One line's height in CSS (`.diff-lines` line-height): what a chunk off screen is taken to be. */
const DIFF_LINE_PX = 19;
const CHUNK_LINES = 100;

/** [start, end) of each chunk of `count` lines. */
const chunks = (count: number) =>
  Array.from({ length: Math.ceil(count / CHUNK_LINES) }, (_, i): [number, number] => [
    i * CHUNK_LINES,
    Math.min(count, (i + 1) * CHUNK_LINES),
  ]);

/** Digits of the largest line number of these lines (at least 3): every line's gutter is that wide. */
function gutterWidth(lines: DiffLine[]): number {
  let largest = 0;
  for (const line of lines) largest = Math.max(largest, line.oldLine ?? 0, line.newLine ?? 0);
  return Math.max(3, String(largest).length);
}

interface DiffLinesProps {
  /** A unified diff of one file, as much of it as is here. */
  text: string;
  /** The whole diff is in `text`. */
  complete: boolean;
  /** The file's path: picks the highlighting language. */
  path: string;
  /** More actions beside "Show more"; `allShown` once every line here is on screen. */
  actions?: (allShown: boolean) => ReactNode;
}

/**
 * A unified diff's lines (TL-1), highlighted in the worker and paged: a long diff shows its first
 * lines and says how many more there are ("Show 400 more of 4,950 lines"). Nothing is cut
 * silently. Used by the timeline's file changes and by the Git view (GIT-9).
 */
export function DiffLines({ text, complete, path, actions }: DiffLinesProps) {
  const [shownLines, setShownLines] = useState(FIRST_DIFF_LINES);
  // Only the lines about to show are parsed (with room for the file headers): a 5,000-line diff's
  // first screen costs what a 50-line diff's does; the rest is counted, not parsed, until asked for.
  const cut = useMemo(() => endOfLines(text, shownLines + HEADER_LINES), [text, shownLines]);
  const parsedWhole = cut >= text.length;
  const parsed = useMemo(
    () => parseFileDiff(text.slice(0, cut), complete && parsedWhole),
    [text, cut, complete, parsedWhole],
  );
  const unparsedLines = useMemo(() => (parsedWhole ? 0 : linesAfter(text, cut)), [text, cut, parsedWhole]);
  const { tokenAt: tokens, theme } = useDiffHighlight(
    parsed.lines,
    parsed.unparsed ? null : languageForPath(path),
    shownLines,
  );
  const shown = parsed.lines.slice(0, shownLines);
  const numberWidth = useMemo(() => gutterWidth(parsed.lines), [parsed.lines]);
  const hidden = parsed.lines.length - shown.length + unparsedLines;

  return (
    <>
      {parsed.unparsed && (
        <p className="muted file-diff-note">Not a diff this app can read ({parsed.unparsed}); shown as it is.</p>
      )}
      <div
        className="diff-lines mono"
        role="group"
        aria-label={`Diff of ${path}`}
        data-highlight-theme={theme ?? undefined}
      >
        {chunks(shown.length).map(([start, end]) => (
          // Chunks off screen skip layout (content-visibility): a diff opened to thousands of lines lays
          // out what is in view. NOTE: not the first chunk: the timeline already mounts only the rows
          // near the view, and a skipped first chunk was shown and skipped again as the list re-placed
          // its rows, all its lines styled and laid out in one frame each time (TL-4).
          <div
            key={start}
            className={start === 0 ? 'diff-chunk-first' : 'diff-chunk'}
            style={start === 0 ? undefined : { containIntrinsicBlockSize: `auto ${(end - start) * DIFF_LINE_PX}px` }}
          >
            {shown.slice(start, end).map((line, i) => (
              <DiffLineView key={start + i} line={line} tokens={tokens(start + i)} numberWidth={numberWidth} />
            ))}
          </div>
        ))}
      </div>
      <div className="row file-diff-actions">
        {hidden > 0 && (
          <button type="button" onClick={() => setShownLines((n) => n + MORE_DIFF_LINES)}>
            Show {Math.min(MORE_DIFF_LINES, hidden).toLocaleString('en')} more of {hidden.toLocaleString('en')} lines
          </button>
        )}
        {actions?.(hidden === 0)}
      </div>
    </>
  );
}
