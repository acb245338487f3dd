'use client';
import { memo } from 'react';
import type { DiffLine } from '../../../lib/client/diff/parseFileDiff';
import type { TokenLine } from '../../../lib/highlight/tokens';
import { TokenRunsView } from '../../files/TokenLineView';
import { diffGutter, tokenRuns } from './diffLineRuns';

/** One diff line: old and new line numbers, its sign and its (highlighted) text. */
export const DiffLineView = memo(function DiffLineView({
  line,
  tokens,
  numberWidth,
}: {
  line: DiffLine;
  tokens: TokenLine | null;
  numberWidth: number;
}) {
  return (
    <div className={`diff-line diff-${line.kind}`} data-diff-line={line.kind}>
      <span className="diff-gutter" aria-hidden="true">
        {diffGutter(line, numberWidth)}
      </span>
      <span className="diff-text">
        {tokens ? (
          // An unstyled run is bare text: no element to make, style, lay out or remove.
          <TokenRunsView runs={tokenRuns(tokens)} />
        ) : (
          line.text
        )}
      </span>
    </div>
  );
});
