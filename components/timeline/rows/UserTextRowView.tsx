import type { AgentItemRow } from '../../../lib/protocol/rows';
import { LinkedText } from '../../LinkedText';

/** A user message found in the agent's history that no app run sent (TL-1). */
export function UserTextRowView({ row }: { row: Extract<AgentItemRow, { kind: 'userText' }> }) {
  return (
    <div className="card message" data-row="userText">
      <div className="timeline-text">
        <LinkedText text={row.text} />
      </div>
    </div>
  );
}
