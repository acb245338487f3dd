'use client';
import { useEffect, useState } from 'react';
import { highlightCodeBlock } from '../../lib/client/highlightClient';
import { resolveLanguage } from '../../lib/highlight/languages';
import type { ThemeName, TokenLine } from '../../lib/highlight/tokens';
import { TokenLineView } from './TokenLineView';
import { usePreferredTheme } from './usePreferredTheme';

/** A fenced code block, highlighted by the worker (HL-1); plain until the tokens arrive. */
export function HighlightedCode({ code, language }: { code: string; language: string }) {
  const [highlighted, setHighlighted] = useState<{ lines: TokenLine[]; theme: ThemeName } | null>(null);
  const lines = highlighted?.lines ?? null;
  const resolved = resolveLanguage(language);
  const theme = usePreferredTheme();
  useEffect(() => {
    setHighlighted(null);
    if (!resolved) return;
    let live = true;
    highlightCodeBlock(code, resolved, theme).then(
      (tokens) => live && setHighlighted({ lines: tokens, theme }),
      (error: unknown) => console.warn('Highlighting a code block failed', error),
    );
    return () => {
      live = false;
    };
  }, [code, resolved, theme]);
  return (
    <code
      className={`language-${language}`}
      data-highlighted={lines ? 'true' : 'false'}
      data-highlight-theme={highlighted?.theme}
    >
      {lines
        ? lines.map((tokens, i) => (
            <span key={i} className="code-line">
              <TokenLineView tokens={tokens} />
              {i < lines.length - 1 ? '\n' : null}
            </span>
          ))
        : code}
    </code>
  );
}
