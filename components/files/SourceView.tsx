'use client';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { highlightDocument, preferredTheme, themeColors } from '../../lib/client/highlightClient';
import { MAX_HIGHLIGHT_BYTES, MAX_HIGHLIGHT_LINE_LENGTH } from '../../lib/highlight/limits';
import { unpackLine, type ThemeColors, type TokenBatch } from '../../lib/highlight/tokens';
import { TokenLineView } from './TokenLineView';

const LINE_HEIGHT = 20;

/**
 * Source text, virtualized, highlighted by the worker (HL-1) batch by batch from the top: lines
 * not yet highlighted show plain until their batch arrives (HL-2). Past the stated limits the
 * view says so and stays plain.
 */
export function SourceView({ text, language, partial = false }: { text: string; language: string | null; partial?: boolean }) {
  const lines = useMemo(() => text.split(/\r?\n/), [text]);
  /** Batches so far, and for each line the index of its batch (-1: not yet highlighted). */
  const [highlighted, setHighlighted] = useState<{ batches: TokenBatch[]; batchOfLine: Int32Array } | null>(null);
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
    const theme = preferredTheme();
    setState('highlighting');
    void (async () => {
      try {
        setColors(await themeColors(theme));
        const batches: TokenBatch[] = [];
        const batchOfLine = new Int32Array(lines.length).fill(-1);
        for await (const batch of highlightDocument(text, language, theme, abort.signal)) {
          if (abort.signal.aborted) return;
          batchOfLine.fill(batches.push(batch) - 1, batch.firstLine, Math.min(lines.length, batch.firstLine + batch.lineCount));
          setHighlighted({ batches, batchOfLine });
        }
        // A file's first lines alone are not the file highlighted: the rest follows.
        if (!abort.signal.aborted && !partial) setState('highlighted');
      } catch (error) {
        console.warn('Highlighting failed; showing plain text', error);
        if (!abort.signal.aborted) setState('failed');
      }
    })();
    return () => abort.abort();
  }, [text, lines, language, tooLarge, partial]);

  const virtualizer = useVirtualizer({ count: lines.length, getScrollElement: () => parent.current, estimateSize: () => LINE_HEIGHT, overscan: 10 });
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
        style={colors ? { background: colors.background, color: colors.foreground } : undefined}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const batch = highlighted ? highlighted.batches[highlighted.batchOfLine[item.index]!] : undefined;
            const lineTokens = batch ? unpackLine(batch, item.index, lines[item.index]!) : null;
            return (
              <div
                key={item.index}
                className="source-line"
                data-line={item.index + 1}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, height: LINE_HEIGHT, transform: `translateY(${item.start}px)` }}
              >
                <span className="source-gutter" style={{ width: `${gutter + 1}ch` }} aria-hidden="true">
                  {item.index + 1}
                </span>
                <span className="source-text">{lineTokens ? <TokenLineView tokens={lineTokens} /> : lines[item.index]}</span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
