import type { AgentItemRow } from '../../../lib/protocol/rows';

/** A reasoning summary, collapsed until asked for (TL-1). */
export function ReasoningRowView({ row }: { row: Extract<AgentItemRow, { kind: 'reasoning' }> }) {
  const firstLine = row.text.trim().split('\n', 1)[0] ?? '';
  return (
    <details className="card reasoning" data-row="reasoning">
      <summary>
        <span className="muted">{row.streaming ? 'Thinking…' : 'Reasoning'}</span>{' '}
        <span className="reasoning-preview">{firstLine}</span>
      </summary>
      <div className="timeline-text">{row.text}</div>
    </details>
  );
}
