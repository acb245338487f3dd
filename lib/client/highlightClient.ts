import { wrap, type Remote } from 'comlink';
import { z } from 'zod';
import type { HighlightService } from '../highlight/highlightService';
import { BATCH_LINES, FIRST_BATCH_LINES } from '../highlight/limits';
import {
  ThemeColorsSchema,
  TokenBatchSchema,
  TokenLineSchema,
  type ThemeColors,
  type ThemeName,
  type TokenBatch,
  type TokenLine,
} from '../highlight/tokens';

let remote: Remote<HighlightService> | null = null;

/** The one highlight worker, started on first use (HL-1: the main thread never tokenizes). */
function highlightWorker(): Remote<HighlightService> {
  if (!remote) {
    // Bundled by scripts/build-app.mjs from workers/highlight.worker.ts.
    const worker = new Worker('/workers/highlight.worker.js', { type: 'module', name: 'highlight' });
    remote = wrap<HighlightService>(worker);
  }
  return remote;
}

export function preferredTheme(): ThemeName {
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

let documentCount = 0;

/**
 * Highlights a document batch by batch (HL-2): a small first batch so the first screen shows at
 * once, then the rest. Ends early when `signal` aborts; yields nothing when the worker declines
 * (unknown language or past the stated size limit). Every reply is checked at this edge.
 */
export async function* highlightDocument(
  text: string,
  language: string,
  theme: ThemeName,
  signal?: AbortSignal,
): AsyncGenerator<TokenBatch> {
  const worker = highlightWorker();
  const id = `doc-${++documentCount}`;
  if (!(await worker.open(id, text, language, theme))) return;
  try {
    for (let count = FIRST_BATCH_LINES; ; count = BATCH_LINES) {
      if (signal?.aborted) return;
      const batch = TokenBatchSchema.parse(await worker.next(id, count));
      yield batch;
      if (batch.done) return;
    }
  } finally {
    void worker.close(id);
  }
}

export async function highlightCodeBlock(code: string, language: string, theme: ThemeName): Promise<TokenLine[]> {
  return z.array(TokenLineSchema).parse(await highlightWorker().highlightBlock(code, language, theme));
}

export async function themeColors(theme: ThemeName): Promise<ThemeColors> {
  return ThemeColorsSchema.parse(await highlightWorker().colors(theme));
}
