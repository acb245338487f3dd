'use client';
import type { KeyboardEvent } from 'react';
import type { CommandRow } from '../../lib/protocol/rows';
import { formatBytes } from '../formatting';
import { OutputMoreMenu } from './OutputMoreMenu';

interface OutputToolbarProps {
  row: CommandRow;
  total: number;
  onClose: () => void;
  onStart: () => void;
  onEnd: () => void;
  query: string;
  onQueryChange: (text: string) => void;
  onFindKey: (event: KeyboardEvent<HTMLInputElement>) => void;
  onFind: (direction: 'next' | 'previous') => void;
  wrap: boolean;
  onWrapChange: (wrap: boolean) => void;
  onCopy: () => void;
  /** Stops the running command (ACC-6, `run.cancel`); absent while offline. */
  onStop?: () => void;
}

/**
 * The output viewer's controls (PWA-2) in one row (UX-4): back, the command and its size, Stop,
 * Find with its previous and next, and Start, End, Wrap and Copy, which a phone keeps in a menu.
 */
export function OutputToolbar(props: OutputToolbarProps) {
  const { row, total, query, wrap } = props;
  return (
    <div className="topbar output-toolbar" data-testid="output-toolbar">
      <button className="icon-button" onClick={props.onClose} aria-label="Back to timeline">
        ←
      </button>
      <div className="output-title">
        <div className="ellipsis mono">$ {row.command}</div>
        <div className="ellipsis muted" data-testid="output-size">
          {formatBytes(total)}
          {!row.complete && ' · running'}
        </div>
      </div>
      {row.status === 'running' && props.onStop && (
        <button className="danger" onClick={props.onStop}>
          Stop
        </button>
      )}
      <input
        aria-label="Find in output"
        placeholder="Find"
        className="output-find"
        type="search"
        enterKeyHint="search"
        value={query}
        onChange={(e) => props.onQueryChange(e.target.value)}
        onKeyDown={props.onFindKey}
      />
      <button
        className="icon-button"
        onClick={() => props.onFind('previous')}
        disabled={!query}
        aria-label="Previous match"
      >
        ↑
      </button>
      <button className="icon-button" onClick={() => props.onFind('next')} disabled={!query} aria-label="Next match">
        ↓
      </button>
      <OutputMoreMenu>
        <button onClick={props.onStart}>Start</button>
        <button onClick={props.onEnd}>End</button>
        <button aria-pressed={wrap} onClick={() => props.onWrapChange(!wrap)}>
          Wrap
        </button>
        <button onClick={props.onCopy}>Copy</button>
      </OutputMoreMenu>
    </div>
  );
}
