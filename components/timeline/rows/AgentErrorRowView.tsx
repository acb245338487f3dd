import type { AgentItemRow } from '../../../lib/protocol/rows';
import { PagedText } from '../PagedText';
import { textSource, type RowContext } from '../rowContext';

/** An error the agent reported, with its message and any detail (TL-1). */
export function AgentErrorRowView({
  row,
  context,
}: {
  row: Extract<AgentItemRow, { kind: 'agentError' }>;
  context: RowContext;
}) {
  return (
    <div className="card agent-error" data-row="agentError" role="alert">
      <p className="error timeline-text">{row.message}</p>
      {row.detail && (
        <PagedText
          client={context.client}
          source={textSource(row, 'detail')}
          body={row.detail}
          initialLines={6}
          label="Error detail"
        />
      )}
    </div>
  );
}
