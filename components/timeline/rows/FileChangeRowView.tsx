import type { AgentItemRow } from '../../../lib/protocol/rows';
import { LazyFileDiff } from '../../lazy/LazyFileDiff';
import { textSource, type RowContext } from '../rowContext';
import { ItemStatusPill } from './ItemStatusPill';

/** Files the agent changed, each with its own diff viewer (TL-1). */
export function FileChangeRowView({
  row,
  context,
}: {
  row: Extract<AgentItemRow, { kind: 'fileChange' }>;
  context: RowContext;
}) {
  const added = row.files.reduce((sum, f) => sum + f.added, 0);
  const removed = row.files.reduce((sum, f) => sum + f.removed, 0);
  return (
    <div className="card file-change" data-row="fileChange">
      <div className="row">
        <strong className="grow">
          {row.files.length === 1 ? 'Changed 1 file' : `Changed ${row.files.length} files`}
        </strong>
        <span className="diff-count-added">+{added}</span>
        <span className="diff-count-removed">−{removed}</span>
        <ItemStatusPill status={row.status} waiting={context.waitingForApproval.has(row.itemId)} />
      </div>
      {row.files.map((file, i) => (
        <LazyFileDiff
          key={`${i}:${file.path}`}
          client={context.client}
          source={textSource(row, `files.${i}.diff`)}
          file={file}
        />
      ))}
    </div>
  );
}
