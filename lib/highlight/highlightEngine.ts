import { createHighlighterCore, type GrammarState, type HighlighterCore } from 'shiki/core';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
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
 * The JavaScript regex engine needs no WebAssembly, so the worker runs under the app's CSP.
 */
export class HighlightEngine {
  private readonly languages = new Map<string, Promise<void>>();

  private constructor(private readonly shiki: HighlighterCore) {}

  static async create(): Promise<HighlightEngine> {
    const shiki = await createHighlighterCore({
      themes: [import('shiki/themes/github-light.mjs'), import('shiki/themes/github-dark.mjs')],
      langs: [],
      // NOTE: forgiving skips the few patterns JavaScript regexes cannot express instead of failing the grammar.
      engine: createJavaScriptRegexEngine({ forgiving: true }),
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
      // NOTE: no per-line time limit. The JavaScript engine compiles each grammar pattern on first
      // use, which on a busy machine outlasts Shiki's default 500 ms: the line is then cut short
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
