'use client';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { DiffLine } from '../../../lib/client/diff/parseFileDiff';
import { highlightDocument, preferredTheme } from '../../../lib/client/highlightClient';
import { unpackLine, type TokenBatch, type TokenLine } from '../../../lib/highlight/tokens';

/** Tokens of the diff's line `index`, or null while (or when never) highlighted. */
export type DiffTokens = (index: number) => TokenLine | null;

/**
 * Highlights a file's diff lines in the Shiki worker (HL-1, HL-2), batch by batch, asking for the
 * next batch only while lines the view shows are still plain: a 5,000-line diff whose first
 * hundred lines are shown costs the worker one small batch, not the whole file.
 */
export function useDiffHighlight(lines: DiffLine[], language: string | null, shownLines: number): DiffTokens {
  const [batches, setBatches] = useState<TokenBatch[]>([]);
  const wanted = useRef(shownLines);
  const wake = useRef<(() => void) | null>(null);
  // Hunk headers and notes are not code: they take an empty line so the numbering stays aligned.
  const document = useMemo(() => lines.map((line) => (line.kind === 'hunk' || line.kind === 'note' ? '' : line.text)).join('\n'), [lines]);

  useEffect(() => {
    wanted.current = shownLines;
    wake.current?.();
  }, [shownLines]);

  useEffect(() => {
    setBatches([]);
    if (!language || document.length === 0) return;
    const abort = new AbortController();
    void (async () => {
      try {
        for await (const batch of highlightDocument(document, language, preferredTheme(), abort.signal)) {
          if (abort.signal.aborted) return;
          setBatches((current) => [...current, batch]);
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
  }, [document, language]);

  return useMemo(() => {
    const texts = lines;
    return (index: number) => {
      const batch = batches.find((b) => index >= b.firstLine && index < b.firstLine + b.lineCount);
      const line = texts[index];
      if (!batch || !line || line.kind === 'hunk' || line.kind === 'note') return null;
      return unpackLine(batch, index, line.text);
    };
  }, [batches, lines]);
}
