import type { AgentItemRow } from '../../../lib/protocol/rows';
import { PagedText } from '../PagedText';
import { textSource, type RowContext } from '../rowContext';
import { ItemStatusPill } from './ItemStatusPill';

/** A subagent: opens its own timeline (`sessions.timeline` with this row's itemId as parent) (TL-1). */
export function SubagentRowView({
  row,
  context,
}: {
  row: Extract<AgentItemRow, { kind: 'subagent' }>;
  context: RowContext;
}) {
  return (
    <div className="card subagent" data-row="subagent">
      <div className="row">
        <span className="pill">{row.agentType ?? 'subagent'}</span>
        <span className="grow timeline-text">{row.title}</span>
        <ItemStatusPill status={row.status} />
      </div>
      {row.result && (
        <PagedText
          client={context.client}
          source={textSource(row, 'result')}
          body={row.result}
          initialLines={4}
          label={`Result of ${row.title}`}
        />
      )}
      <button type="button" onClick={() => context.onOpenSubagent(row)}>
        Open its timeline
      </button>
    </div>
  );
}
