import type { AgentItemRow } from '../../../lib/protocol/rows';

/** The agent compacted its context (TL-1). */
export function CompactionRowView({ row }: { row: Extract<AgentItemRow, { kind: 'compaction' }> }) {
  return (
    <div className="compaction" data-row="compaction">
      <span className="compaction-label">Context compacted</span>
      {row.text && <span className="muted timeline-text">{row.text}</span>}
    </div>
  );
}
