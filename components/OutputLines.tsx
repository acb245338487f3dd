'use client';
import type { CSSProperties } from 'react';
import type { AnsiStyle } from '../lib/terminal/ansi';
import type { TerminalSegment } from '../lib/terminal/terminalRow';
import { ReaderLink } from './LinkedText';

function styleOf(style: AnsiStyle): CSSProperties | undefined {
  if (Object.keys(style).length === 0) return undefined;
  const fg = style.inverse ? (style.bg ?? 'var(--bg)') : style.fg;
  const bg = style.inverse ? (style.fg ?? 'var(--text)') : style.bg;
  return {
    color: fg,
    backgroundColor: bg,
    fontWeight: style.bold ? 700 : undefined,
    opacity: style.dim ? 0.7 : undefined,
    fontStyle: style.italic ? 'italic' : undefined,
    textDecoration: style.underline ? 'underline' : undefined,
  };
}

/** Splits text on case-insensitive matches of `query` so they can be marked. */
function marked(text: string, query: string, key: string) {
  if (!query) return text;
  const parts = [];
  const haystack = text.toLowerCase();
  const needle = query.toLowerCase();
  let last = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
    if (at > last) parts.push(text.slice(last, at));
    parts.push(<mark key={`${key}-${at}`}>{text.slice(at, at + needle.length)}</mark>);
    last = at + needle.length;
  }
  if (last === 0) return text;
  parts.push(text.slice(last));
  return parts;
}

/** One output line as a terminal shows it (UX-2): styled segments, OSC 8 links, find matches marked. */
export function OutputLineView({ segments, query }: { segments: readonly TerminalSegment[]; query: string }) {
  return (
    <>
      {segments.map((segment, i) => {
        const text = (
          <span key={i} style={styleOf(segment.style)}>
            {marked(segment.text, query, String(i))}
          </span>
        );
        return segment.link ? (
          <ReaderLink key={i} url={segment.link}>
            {text}
          </ReaderLink>
        ) : (
          text
        );
      })}
    </>
  );
}
