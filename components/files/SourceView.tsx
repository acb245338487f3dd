'use client';
import { defaultRangeExtractor, useVirtualizer, type Range } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { highlightDocument, themeColors } from '../../lib/client/highlightClient';
import { MAX_HIGHLIGHT_BYTES, MAX_HIGHLIGHT_LINE_LENGTH } from '../../lib/highlight/limits';
import type { ThemeColors, ThemeName, TokenBatch } from '../../lib/highlight/tokens';
import { SOURCE_LINE_HEIGHT, SourceLine } from './SourceLine';
import { usePreferredTheme } from './usePreferredTheme';

/** Rows kept beyond each edge of the view: enough for a wheel step, few enough to render fast (PERF-6). */
const OVERSCAN_LINES = 6;

/**
 * Source text, virtualized, highlighted by the worker (HL-1) batch by batch from the top: lines
 * not yet highlighted show plain until their batch arrives (HL-2). Past the stated limits the
 * view says so and stays plain.
 */
export function SourceView({
  text,
  language,
  partial = false,
}: {
  text: string;
  language: string | null;
  partial?: boolean;
}) {
  const lines = useMemo(() => text.split(/\r?\n/), [text]);
  /** Batches so far, and for each line the index of its batch (-1: not yet highlighted). */
  const [highlighted, setHighlighted] = useState<{
    batches: TokenBatch[];
    batchOfLine: Int32Array;
    theme: ThemeName;
  } | null>(null);
  const theme = usePreferredTheme();
  const [colors, setColors] = useState<ThemeColors | null>(null);
  const [state, setState] = useState<'plain' | 'highlighting' | 'highlighted' | 'failed'>('plain');
  const parent = useRef<HTMLDivElement>(null);
  const tooLarge = text.length > MAX_HIGHLIGHT_BYTES;
  const hasLongLines = useMemo(() => lines.some((l) => l.length > MAX_HIGHLIGHT_LINE_LENGTH), [lines]);

  /** The text highlighted last: a file's first lines (PERF-6) keep their colours while the whole file starts over. */
  const previousText = useRef('');

  useEffect(() => {
    const extendsPrevious = previousText.current !== '' && text.startsWith(previousText.current);
    previousText.current = text;
    if (!extendsPrevious) setHighlighted(null);
    if (!language || tooLarge) {
      setState('plain');
      return;
    }
    const abort = new AbortController();
    setState('highlighting');
    void (async () => {
      try {
        setColors(await themeColors(theme));
        const batches: TokenBatch[] = [];
        const batchOfLine = new Int32Array(lines.length).fill(-1);
        for await (const batch of highlightDocument(text, language, theme, abort.signal)) {
          if (abort.signal.aborted) return;
          batchOfLine.fill(
            batches.push(batch) - 1,
            batch.firstLine,
            Math.min(lines.length, batch.firstLine + batch.lineCount),
          );
          setHighlighted({ batches, batchOfLine, theme });
        }
        // A file's first lines alone are not the file highlighted: the rest follows.
        if (!abort.signal.aborted && !partial) setState('highlighted');
      } catch (error) {
        console.warn('Highlighting failed; showing plain text', error);
        if (!abort.signal.aborted) setState('failed');
      }
    })();
    return () => abort.abort();
  }, [text, lines, language, tooLarge, partial, theme]);

  /** The lines on screen at the last range change. */
  const shownRange = useRef<{ start: number; end: number } | null>(null);
  // PERF-6: when the view jumps past everything it had on screen (a scrollbar drag, a fling),
  // the rows around the new place would be made, laid out and painted for nothing: only the
  // visible ones are rendered; the overscan comes back with the next small step.
  const rangeExtractor = useCallback((range: Range) => {
    const previous = shownRange.current;
    shownRange.current = { start: range.startIndex, end: range.endIndex };
    const jumped = previous !== null && (range.startIndex > previous.end || range.endIndex < previous.start);
    return defaultRangeExtractor(jumped ? { ...range, overscan: 0 } : range);
  }, []);
  const virtualizer = useVirtualizer({
    count: lines.length,
    getScrollElement: () => parent.current,
    estimateSize: () => SOURCE_LINE_HEIGHT,
    overscan: OVERSCAN_LINES,
    rangeExtractor,
    // PERF-6: a scroll step renders its rows in a task of its own, not inside the frame that
    // also lays out and paints the previous step's rows.
    useFlushSync: false,
  });
  const gutter = String(lines.length).length;

  return (
    <div className="source-view">
      {(tooLarge || hasLongLines || state === 'failed') && (
        <p className="muted source-note" role="note">
          {tooLarge
            ? `This file is larger than ${MAX_HIGHLIGHT_BYTES / 1024 / 1024} MiB, so it is shown as plain text.`
            : state === 'failed'
              ? 'Highlighting failed, so this file is shown as plain text.'
              : `Lines longer than ${MAX_HIGHLIGHT_LINE_LENGTH.toLocaleString('en')} characters are shown as plain text.`}
        </p>
      )}
      <div
        ref={parent}
        className="source-lines mono"
        tabIndex={0}
        role="region"
        aria-label="File contents"
        data-highlight={state}
        data-highlight-theme={highlighted?.theme}
        style={colors ? { background: colors.background, color: colors.foreground } : undefined}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => (
            <SourceLine
              key={item.index}
              index={item.index}
              text={lines[item.index]!}
              batch={highlighted ? highlighted.batches[highlighted.batchOfLine[item.index]!] : undefined}
              top={item.start}
              gutterWidth={gutter}
            />
          ))}
        </div>
      </div>
    </div>
  );
}
