import type { AgentItemRow } from '../../../lib/protocol/rows';
import { formatElapsed } from '../../formatting';

const STATUS = { completed: 'Turn completed', interrupted: 'Turn interrupted', failed: 'Turn failed' } as const;
const count = (n: number) => n.toLocaleString('en');

/** The end of a turn: status, duration, token usage and cost (TL-1). */
export function TurnEndRowView({ row }: { row: Extract<AgentItemRow, { kind: 'turnEnd' }> }) {
  const usage = row.usage;
  return (
    <div className={`turn-end turn-end-${row.status}`} data-row="turnEnd" data-status={row.status}>
      <span className="turn-end-status">{STATUS[row.status]}</span>
      {row.durationMs !== null && <span>{formatElapsed(row.durationMs)}</span>}
      {usage && (
        <span>
          {count(usage.inputTokens)} in{usage.cachedInputTokens ? ` (${count(usage.cachedInputTokens)} cached)` : ''} ·{' '}
          {count(usage.outputTokens)} out
          {usage.reasoningTokens ? ` (${count(usage.reasoningTokens)} reasoning)` : ''} tokens
        </span>
      )}
      {row.costUsd !== null && <span>${row.costUsd < 0.01 ? row.costUsd.toFixed(4) : row.costUsd.toFixed(2)}</span>}
      {row.error && <span className="error timeline-text">{row.error}</span>}
    </div>
  );
}
