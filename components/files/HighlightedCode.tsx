'use client';
import { useEffect, useState } from 'react';
import { highlightCodeBlock, preferredTheme } from '../../lib/client/highlightClient';
import { resolveLanguage } from '../../lib/highlight/languages';
import type { TokenLine } from '../../lib/highlight/tokens';
import { TokenLineView } from './TokenLineView';

/** A fenced code block, highlighted by the worker (HL-1); plain until the tokens arrive. */
export function HighlightedCode({ code, language }: { code: string; language: string }) {
  const [lines, setLines] = useState<TokenLine[] | null>(null);
  const resolved = resolveLanguage(language);
  useEffect(() => {
    setLines(null);
    if (!resolved) return;
    let live = true;
    highlightCodeBlock(code, resolved, preferredTheme()).then(
      (tokens) => live && setLines(tokens),
      (error: unknown) => console.warn('Highlighting a code block failed', error),
    );
    return () => {
      live = false;
    };
  }, [code, resolved]);
  return (
    <code className={`language-${language}`} data-highlighted={lines ? 'true' : 'false'}>
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
