'use client';
import type { KeyboardEvent } from 'react';
import type { CommandRow } from '../../lib/protocol/rows';
import { formatBytes } from '../formatting';

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

/** The output viewer's controls (PWA-2): back, the command and its size, Start, End, Find, Wrap and Copy. */
export function OutputToolbar(props: OutputToolbarProps) {
  const { row, total, query, wrap } = props;
  return (
    <>
      <div className="topbar" style={{ borderBottom: 'none', flexWrap: 'wrap' }}>
        <button onClick={props.onClose} aria-label="Back to timeline">
          ←
        </button>
        <div className="grow ellipsis mono" style={{ minWidth: 120 }}>
          $ {row.command}
        </div>
        <span className="muted" data-testid="output-size">
          {formatBytes(total)}
          {!row.complete && ' · running'}
        </span>
        {row.status === 'running' && props.onStop && (
          <button className="danger" onClick={props.onStop}>
            Stop
          </button>
        )}
        <button onClick={props.onStart}>Start</button>
        <button onClick={props.onEnd}>End</button>
      </div>
      <div className="row" style={{ padding: '0 14px 8px' }}>
        <input
          aria-label="Find in output"
          placeholder="Find"
          className="grow"
          value={query}
          onChange={(e) => props.onQueryChange(e.target.value)}
          onKeyDown={props.onFindKey}
        />
        <button onClick={() => props.onFind('previous')} disabled={!query} aria-label="Previous match">↑</button>
        <button onClick={() => props.onFind('next')} disabled={!query} aria-label="Next match">↓</button>
        <button aria-pressed={wrap} onClick={() => props.onWrapChange(!wrap)}>Wrap</button>
        <button onClick={props.onCopy}>Copy</button>
      </div>
    </>
  );
}
