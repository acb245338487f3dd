'use client';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { DiffLine } from '../../../lib/client/diff/parseFileDiff';
import { highlightDocument, preferredTheme } from '../../../lib/client/highlightClient';
import { unpackLine, type TokenLine } from '../../../lib/highlight/tokens';

/** Tokens of the diff's line `index`, or null while (or when never) highlighted. */
export type DiffTokens = (index: number) => TokenLine | null;

/**
 * Highlights a file's diff lines in the Shiki worker (HL-1, HL-2), batch by batch, asking for the
 * next batch only while lines the view shows are still plain: a 5,000-line diff whose first
 * hundred lines are shown costs the worker one small batch, not the whole file.
 */
export function useDiffHighlight(lines: DiffLine[], language: string | null, shownLines: number): DiffTokens {
  /** Tokens by line, filled batch by batch; each line's array is made once, so a line already shown does not render again. */
  const [tokens, setTokens] = useState<(TokenLine | null)[]>([]);
  const wanted = useRef(shownLines);
  const wake = useRef<(() => void) | null>(null);
  // Hunk headers and notes are not code: they take an empty line so the numbering stays aligned.
  const document = useMemo(() => lines.map((line) => (line.kind === 'hunk' || line.kind === 'note' ? '' : line.text)).join('\n'), [lines]);

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
        for await (const batch of highlightDocument(document, language, preferredTheme(), abort.signal)) {
          if (abort.signal.aborted) return;
          const unpacked = Array.from({ length: batch.lineCount }, (_, i) => {
            const line = lines[batch.firstLine + i];
            return line && line.kind !== 'hunk' && line.kind !== 'note' ? unpackLine(batch, batch.firstLine + i, line.text) : null;
          });
          setTokens((current) => [...current.slice(0, batch.firstLine), ...unpacked]);
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
  }, [document, language, lines]);

  return useMemo(() => (index: number) => tokens[index] ?? null, [tokens]);
}
