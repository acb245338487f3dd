'use client';
import { useMemo, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { TextBody } from '../../lib/protocol/rows';
import { formatBytes } from '../formatting';
import { ReadRestButton } from './ReadRestButton';
import { endOfLines, linesAfter } from './textPages';
import { useItemText, type ItemTextSource } from './useItemText';

const STEP_LINES = 500;

/**
 * A long item text shown a page at a time (TL-1): a few lines first, "Show N more lines" for
 * the rest of what is here, then the next 256 KiB slice from the runtime. Whatever is not shown
 * is counted on the buttons: a text is never cut silently.
 */
export function PagedText({
  client,
  source,
  body,
  initialLines = 12,
  label,
}: {
  client: RpcClient | null;
  source: ItemTextSource;
  body: TextBody;
  initialLines?: number;
  label: string;
}) {
  const item = useItemText(client, source, body);
  const [shownLines, setShownLines] = useState(initialLines);
  const end = useMemo(() => endOfLines(item.text, shownLines), [item.text, shownLines]);
  const hiddenLines = useMemo(() => linesAfter(item.text, end), [item.text, end]);
  // The line break that ends the page is not a line of its own.
  const shown = item.text.slice(0, end).replace(/\n$/, '');
  return (
    <div className="paged-text" data-paged-text={source.field}>
      <pre className="mono paged-text-body" aria-label={label}>
        {shown}
      </pre>
      <div className="row paged-text-actions">
        {hiddenLines > 0 && (
          <button type="button" onClick={() => setShownLines((n) => n + STEP_LINES)}>
            Show {Math.min(STEP_LINES, hiddenLines).toLocaleString('en')} more of {hiddenLines.toLocaleString('en')}{' '}
            lines
          </button>
        )}
        <ReadRestButton client={client} item={item} offer={hiddenLines === 0} />
        {!item.complete && <span className="muted">{formatBytes(body.byteLength)} in all</span>}
      </div>
    </div>
  );
}
