import type { GrammarState } from 'shiki/core';
import { HighlightEngine } from './highlightEngine';
import { MAX_HIGHLIGHT_BYTES } from './limits';
import { packTokenBatch, type ThemeColors, type ThemeName, type TokenBatch, type TokenLine } from './tokens';

interface OpenDocument {
  lines: string[];
  language: string;
  theme: ThemeName;
  next: number;
  state: GrammarState | undefined;
}

/**
 * What the highlight worker offers (HL-1), as a pure module: documents are tokenized batch by
 * batch in order, the grammar state kept here between batches (it cannot cross the boundary).
 */
export interface HighlightService {
  /** Opens a document; false when its language is unknown or it is past MAX_HIGHLIGHT_BYTES. */
  open(documentId: string, text: string, language: string, theme: ThemeName): Promise<boolean>;
  /** The next `count` lines of an open document. */
  next(documentId: string, count: number): TokenBatch;
  close(documentId: string): void;
  /** One code block, whole (Markdown fences). */
  highlightBlock(code: string, language: string, theme: ThemeName): Promise<TokenLine[]>;
  colors(theme: ThemeName): Promise<ThemeColors>;
}

export function createHighlightService(): HighlightService {
  let creating: Promise<HighlightEngine> | null = null;
  /** Set once created: `next` is synchronous, so a batch is one uninterrupted piece of work. */
  let engine: HighlightEngine | null = null;
  const getEngine = async () => (engine ??= await (creating ??= HighlightEngine.create()));
  const documents = new Map<string, OpenDocument>();

  return {
    async open(documentId, text, language, theme) {
      if (text.length > MAX_HIGHLIGHT_BYTES) return false;
      await (await getEngine()).ensureLanguage(language);
      documents.set(documentId, { lines: text.split(/\r?\n/), language, theme, next: 0, state: undefined });
      return true;
    },
    next(documentId, count) {
      const doc = documents.get(documentId);
      if (!doc || !engine) throw new Error('This document is not open for highlighting.');
      const firstLine = doc.next;
      const end = Math.min(doc.lines.length, firstLine + Math.max(1, count));
      const { lines, state } = engine.tokenize(
        doc.lines.slice(firstLine, end).join('\n'),
        doc.language,
        doc.theme,
        doc.state,
      );
      doc.next = end;
      doc.state = state;
      const done = end >= doc.lines.length;
      if (done) documents.delete(documentId);
      return packTokenBatch(firstLine, lines, done);
    },
    close(documentId) {
      documents.delete(documentId);
    },
    async highlightBlock(code, language, theme) {
      const ready = await getEngine();
      await ready.ensureLanguage(language);
      return ready.tokenize(code, language, theme).lines;
    },
    async colors(theme) {
      return (await getEngine()).colors(theme);
    },
  };
}
