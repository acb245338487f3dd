'use client';
import { memo } from 'react';
import { unpackLine, type TokenBatch } from '../../lib/highlight/tokens';
import { TokenLineView } from './TokenLineView';

export const SOURCE_LINE_HEIGHT = 20;

interface SourceLineProps {
  index: number;
  text: string;
  /** The batch holding this line's tokens; undefined while the line is not yet highlighted (HL-2). */
  batch: TokenBatch | undefined;
  top: number;
  gutterWidth: number;
}

/**
 * One row of the source view. Memoized on its own props: a new batch or a scroll step re-renders
 * only the rows whose line or tokens changed, and a row's tokens are cut from the packed batch
 * only when it is on screen (PERF-6: no main-thread task over 50 ms while a big file loads and scrolls).
 * Placed by `top`, not a transform: a row never moves once shown, and a transform per row is a
 * paint property node per row to build on every scroll step.
 */
export const SourceLine = memo(function SourceLine({ index, text, batch, top, gutterWidth }: SourceLineProps) {
  return (
    <div
      className="source-line"
      data-line={index + 1}
      style={{ position: 'absolute', left: 0, right: 0, height: SOURCE_LINE_HEIGHT, top }}
    >
      <span className="source-gutter" style={{ width: `${gutterWidth + 1}ch` }} aria-hidden="true">
        {index + 1}
      </span>
      <span className="source-text">{batch ? <TokenLineView tokens={unpackLine(batch, index, text)} /> : text}</span>
    </div>
  );
});
