import { createHighlighterCore, type GrammarState, type HighlighterCore } from 'shiki/core';
import { createOnigurumaEngine } from 'shiki/engine/oniguruma';
import { loadLanguage } from './languages';
import { MAX_HIGHLIGHT_LINE_LENGTH } from './limits';
import type { ThemeColors, ThemeName, TokenLine } from './tokens';

const THEMES: Record<ThemeName, string> = { light: 'github-light', dark: 'github-dark' };

export interface TokenizedLines {
  lines: TokenLine[];
  /** Where the grammar stands after the last line, to continue with the next batch. */
  state: GrammarState | undefined;
}

/**
 * Shiki's engine, created once and reused (STYLE: shiki), with languages loaded on first use.
 * HL-1: the Oniguruma engine (WebAssembly), the regex library the grammars are written for. Shiki's
 * JavaScript regex engine needs no WebAssembly, but JavaScriptCore (every iPhone browser) runs its
 * generated regexes many times slower: seconds for a first screen of TypeScript. The WebAssembly is
 * a lazily loaded chunk of the worker, cached with it; the worker's CSP allows 'wasm-unsafe-eval'.
 */
export class HighlightEngine {
  private readonly languages = new Map<string, Promise<void>>();

  private constructor(private readonly shiki: HighlighterCore) {}

  static async create(): Promise<HighlightEngine> {
    const shiki = await createHighlighterCore({
      themes: [import('shiki/themes/github-light.mjs'), import('shiki/themes/github-dark.mjs')],
      langs: [],
      engine: createOnigurumaEngine(import('shiki/wasm')),
    });
    return new HighlightEngine(shiki);
  }

  ensureLanguage(id: string): Promise<void> {
    let loading = this.languages.get(id);
    if (!loading) {
      loading = loadLanguage(id).then((grammar) => this.shiki.loadLanguage(grammar));
      loading.catch(() => this.languages.delete(id));
      this.languages.set(id, loading);
    }
    return loading;
  }

  colors(theme: ThemeName): ThemeColors {
    const found = this.shiki.getTheme(THEMES[theme]);
    return { foreground: found.fg, background: found.bg };
  }

  /** Tokenizes lines joined by "\n", continuing from `state` (the end of the previous batch). */
  tokenize(code: string, language: string, theme: ThemeName, state?: GrammarState): TokenizedLines {
    const result = this.shiki.codeToTokens(code, {
      lang: language,
      theme: THEMES[theme],
      tokenizeMaxLineLength: MAX_HIGHLIGHT_LINE_LENGTH,
      // NOTE: no per-line time limit. The engine compiles each grammar pattern on first use,
      // which on a busy machine can outlast Shiki's default 500 ms: the line is then cut short
      // and its state (an open comment) bleeds into the next lines. Long lines are capped above,
      // and this runs in the worker, so the page never waits on it.
      tokenizeTimeLimit: 0,
      ...(state ? { grammarState: state } : {}),
    });
    const foreground = result.fg?.toLowerCase();
    const lines = result.tokens.map((line) =>
      line.map((token): TokenLine[number] => {
        const color = token.color && token.color.toLowerCase() !== foreground ? token.color : '';
        return [token.content, color, Math.max(0, token.fontStyle ?? 0)];
      }),
    );
    return { lines, state: result.grammarState };
  }
}
