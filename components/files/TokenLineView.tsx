'use client';
import type { CSSProperties } from 'react';
import { styledRuns, type TokenLine } from '../../lib/highlight/tokens';

/** The inline style of a token of this colour and Shiki font style; undefined for the default look. */
export function tokenStyle(color: string, fontStyle: number): CSSProperties | undefined {
  if (!color && fontStyle === 0) return undefined;
  return {
    color: color || undefined,
    fontStyle: fontStyle & 1 ? 'italic' : undefined,
    fontWeight: fontStyle & 2 ? 700 : undefined,
    textDecoration: fontStyle & 4 ? 'underline' : fontStyle & 8 ? 'line-through' : undefined,
  };
}

/** Runs of text as they look: a span per styled run, bare text (no element) for the default look. */
export function TokenRunsView({ runs }: { runs: TokenLine }) {
  return (
    <>
      {runs.map(([text, color, fontStyle], i) => {
        const style = tokenStyle(color, fontStyle);
        return style ? (
          <span key={i} style={style}>
            {text}
          </span>
        ) : (
          text
        );
      })}
    </>
  );
}

/**
 * One highlighted line: a span per run of one colour, plain text where the look is the default.
 * Fewer elements per line is what keeps a scroll step's style, layout and paint short (PERF-6).
 */
export function TokenLineView({ tokens }: { tokens: TokenLine }) {
  return <TokenRunsView runs={styledRuns(tokens)} />;
}
