'use client';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { DiffLine } from '../../../lib/client/diff/parseFileDiff';
import { highlightDocument } from '../../../lib/client/highlightClient';
import { unpackLine, type ThemeName, type TokenLine } from '../../../lib/highlight/tokens';
import { usePreferredTheme } from '../../files/usePreferredTheme';

/** Lines coloured per task when highlighting lands. */
const APPLY_LINES = 10;

const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Tokens of the diff's line `index`, or null while (or when never) highlighted. */
export type DiffTokens = (index: number) => TokenLine | null;

/** The diff's tokens, and the theme they are in (HL-3): null until the first batch lands. */
export interface DiffHighlight {
  tokenAt: DiffTokens;
  theme: ThemeName | null;
}

/**
 * Highlights a file's diff lines in the Shiki worker (HL-1, HL-2), batch by batch, asking for the
 * next batch only while lines the view shows are still plain: a 5,000-line diff whose first
 * hundred lines are shown costs the worker one small batch, not the whole file.
 */
export function useDiffHighlight(lines: DiffLine[], language: string | null, shownLines: number): DiffHighlight {
  /** Tokens by line, filled batch by batch; each line's array is made once, so a line already shown does not render again. */
  const [tokens, setTokens] = useState<(TokenLine | null)[]>([]);
  const theme = usePreferredTheme();
  const [tokensTheme, setTokensTheme] = useState<ThemeName | null>(null);
  const wanted = useRef(shownLines);
  const wake = useRef<(() => void) | null>(null);
  // Hunk headers and notes are not code: they take an empty line so the numbering stays aligned.
  const document = useMemo(
    () => lines.map((line) => (line.kind === 'hunk' || line.kind === 'note' ? '' : line.text)).join('\n'),
    [lines],
  );

  useEffect(() => {
    wanted.current = shownLines;
    wake.current?.();
  }, [shownLines]);

  useEffect(() => {
    setTokens([]);
    if (!language || document.length === 0) return;
    const abort = new AbortController();
    void (async () => {
      try {
        for await (const batch of highlightDocument(document, language, theme, abort.signal)) {
          if (abort.signal.aborted) return;
          setTokensTheme(theme);
          // TL-4: a batch's lines take their colours a few at a time, each slice its own task and
          // frame; all at once, a diff row's re-render, style, layout and paint were one long task.
          for (
            let first = batch.firstLine;
            first < batch.firstLine + batch.lineCount && !abort.signal.aborted;
            first += APPLY_LINES
          ) {
            if (first > batch.firstLine) await nextTask();
            const count = Math.min(APPLY_LINES, batch.firstLine + batch.lineCount - first);
            const unpacked = Array.from({ length: count }, (_, i) => {
              const line = lines[first + i];
              return line && line.kind !== 'hunk' && line.kind !== 'note'
                ? unpackLine(batch, first + i, line.text)
                : null;
            });
            if (!abort.signal.aborted) setTokens((current) => [...current.slice(0, first), ...unpacked]);
          }
          while (!abort.signal.aborted && batch.firstLine + batch.lineCount >= wanted.current && !batch.done) {
            await new Promise<void>((resolve) => {
              wake.current = resolve;
              abort.signal.addEventListener('abort', () => resolve(), { once: true });
            });
          }
        }
      } catch (error) {
        if (!abort.signal.aborted) console.warn('Highlighting a diff failed', error);
      }
    })();
    return () => abort.abort();
  }, [document, language, lines, theme]);

  const tokenAt = useMemo(() => (index: number) => tokens[index] ?? null, [tokens]);
  return useMemo(() => ({ tokenAt, theme: tokensTheme }), [tokenAt, tokensTheme]);
}
