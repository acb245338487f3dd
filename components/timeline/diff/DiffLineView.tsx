'use client';
import { memo } from 'react';
import type { DiffLine } from '../../../lib/client/diff/parseFileDiff';
import type { TokenLine } from '../../../lib/highlight/tokens';
import { TokenLineView } from '../../files/TokenLineView';

const SIGN: Record<DiffLine['kind'], string> = { added: '+', removed: '-', context: ' ', hunk: '', note: '' };

/** One diff line: old and new line numbers, its sign and its (highlighted) text. */
export const DiffLineView = memo(function DiffLineView({ line, tokens }: { line: DiffLine; tokens: TokenLine | null }) {
  return (
    <div className={`diff-line diff-${line.kind}`} data-diff-line={line.kind}>
      <span className="diff-number" aria-hidden="true">
        {line.oldLine ?? ''}
      </span>
      <span className="diff-number" aria-hidden="true">
        {line.newLine ?? ''}
      </span>
      <span className="diff-sign" aria-hidden="true">
        {SIGN[line.kind]}
      </span>
      <span className="diff-text">{tokens ? <TokenLineView tokens={tokens} /> : line.text}</span>
    </div>
  );
});
