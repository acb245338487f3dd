'use client';
import { useMemo, useState } from 'react';
import { parseFileDiff, type DiffLine } from '../../../lib/client/diff/parseFileDiff';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { languageForPath } from '../../../lib/highlight/languages';
import type { FileChange } from '../../../lib/protocol/rows';
import { ReadRestButton } from '../ReadRestButton';
import { endOfLines, linesAfter } from '../textPages';
import { useItemText, type ItemTextSource } from '../useItemText';
import { DiffLineView } from './DiffLineView';
import { FIRST_DIFF_LINES, HEADER_LINES, MORE_DIFF_LINES } from './diffPaging';
import { useDiffHighlight } from './useDiffHighlight';


/** One line's height in CSS (`.diff-lines` line-height): what a chunk off screen is taken to be. */
const DIFF_LINE_PX = 19;
const CHUNK_LINES = 100;

/** [start, end) of each chunk of `count` lines. */
const chunks = (count: number) => Array.from({ length: Math.ceil(count / CHUNK_LINES) }, (_, i): [number, number] => [i * CHUNK_LINES, Math.min(count, (i + 1) * CHUNK_LINES)]);

/** Digits of the largest line number of these lines (at least 3): every line's gutter is that wide. */
function gutterWidth(lines: DiffLine[]): number {
  let largest = 0;
  for (const line of lines) largest = Math.max(largest, line.oldLine ?? 0, line.newLine ?? 0);
  return Math.max(3, String(largest).length);
}

const CHANGE_LABEL: Record<FileChange['change'], string> = { add: 'added', delete: 'deleted', update: 'modified' };

/**
 * One file of a file change (TL-1): its path, added/removed counts and its unified diff,
 * highlighted in the worker, paged: a long diff shows its first lines and says how many more
 * there are ("Show 400 more of 4,950 lines"); a diff longer than the row carries is read on
 * through `sessions.itemText`. Nothing is cut silently.
 */
export function FileDiff({ client, source, file }: { client: RpcClient | null; source: ItemTextSource; file: FileChange }) {
  const item = useItemText(client, source, file.diff);
  const [shownLines, setShownLines] = useState(FIRST_DIFF_LINES);
  // Only the lines about to show are parsed (with room for the file headers): a 5,000-line diff's
  // first screen costs what a 50-line diff's does; the rest is counted, not parsed, until asked for.
  const cut = useMemo(() => endOfLines(item.text, shownLines + HEADER_LINES), [item.text, shownLines]);
  const parsedWhole = cut >= item.text.length;
  const parsed = useMemo(() => parseFileDiff(item.text.slice(0, cut), item.complete && parsedWhole), [item.text, cut, item.complete, parsedWhole]);
  const unparsedLines = useMemo(() => (parsedWhole ? 0 : linesAfter(item.text, cut)), [item.text, cut, parsedWhole]);
  const [open, setOpen] = useState(true);
  const language = languageForPath(file.movePath ?? file.path);
  const tokens = useDiffHighlight(parsed.lines, parsed.unparsed ? null : language, shownLines);
  const shown = parsed.lines.slice(0, shownLines);
  const numberWidth = useMemo(() => gutterWidth(parsed.lines), [parsed.lines]);
  const hidden = parsed.lines.length - shown.length + unparsedLines;

  return (
    <section className="file-diff" data-file={file.path}>
      <button type="button" className="file-diff-header" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <span className="mono grow file-diff-path">
          {file.movePath ? `${file.path} → ${file.movePath}` : file.path}
        </span>
        <span className="pill">{CHANGE_LABEL[file.change]}</span>
        <span className="diff-count-added" aria-label={`${file.added} lines added`}>
          +{file.added}
        </span>
        <span className="diff-count-removed" aria-label={`${file.removed} lines removed`}>
          −{file.removed}
        </span>
      </button>
      {open &&
        (file.binary ? (
          <p className="muted file-diff-note">Binary file: no text diff.</p>
        ) : (
          <>
            {parsed.unparsed && <p className="muted file-diff-note">Not a diff this app can read ({parsed.unparsed}); shown as it is.</p>}
            <div className="diff-lines mono" role="group" aria-label={`Diff of ${file.path}`}>
              {chunks(shown.length).map(([start, end]) => (
                // Chunks off screen skip layout (content-visibility): a diff opened to thousands of lines lays
                // out what is in view. NOTE: not the first chunk: the timeline already mounts only the rows
                // near the view, and a skipped first chunk was shown and skipped again as the list re-placed
                // its rows, all its lines styled and laid out in one frame each time (TL-4).
                <div key={start} className={start === 0 ? 'diff-chunk-first' : 'diff-chunk'} style={start === 0 ? undefined : { containIntrinsicBlockSize: `auto ${(end - start) * DIFF_LINE_PX}px` }}>
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
              <ReadRestButton client={client} item={item} offer={hidden === 0} />
            </div>
          </>
        ))}
    </section>
  );
}
