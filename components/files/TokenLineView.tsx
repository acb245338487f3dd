'use client';
import type { CSSProperties } from 'react';
import type { TokenLine } from '../../lib/highlight/tokens';

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

/** One highlighted line: a span per token, coloured as the worker said. */
export function TokenLineView({ tokens }: { tokens: TokenLine }) {
  return (
    <>
      {tokens.map(([text, color, fontStyle], i) => (
        <span key={i} style={tokenStyle(color, fontStyle)}>
          {text}
        </span>
      ))}
    </>
  );
}
