'use client';
import { useEffect, useMemo, useState } from 'react';

/** A file name for a page's Markdown: its title, in safe characters, ending in `.md`. */
function markdownFileName(title: string): string {
  const base = title
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return `${base || 'page'}.md`;
}

interface Props {
  markdown: string;
  title: string;
  showingSource: boolean;
  onToggleSource: () => void;
}

/** MD-1: the reader shows the Markdown text itself, copies it, and saves it as a `.md` file. */
export function ReaderMarkdownActions({ markdown, title, showingSource, onToggleSource }: Props) {
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  const url = useMemo(
    () => URL.createObjectURL(new Blob([markdown], { type: 'text/markdown;charset=utf-8' })),
    [markdown],
  );
  useEffect(() => () => URL.revokeObjectURL(url), [url]);
  useEffect(() => setCopied(null), [markdown]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(markdown);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
  }

  return (
    <span role="group" aria-label="Markdown">
      <button aria-pressed={showingSource} onClick={onToggleSource}>
        Markdown text
      </button>
      <button onClick={() => void copy()}>Copy Markdown</button>
      <a className="button-link" href={url} download={markdownFileName(title)}>
        Save .md
      </a>
      {copied && (
        <span className="muted" role="status">
          {copied === 'copied' ? 'Copied' : 'Could not copy: select the Markdown text instead'}
        </span>
      )}
    </span>
  );
}
