import type { AgentItemRow } from '../../../lib/protocol/rows';

const MARK = { pending: '○', inProgress: '◐', completed: '✓' } as const;
const SPOKEN = { pending: 'to do', inProgress: 'in progress', completed: 'done' } as const;

/** The agent's plan or todo list as a checklist, updated in place (TL-1). */
export function PlanRowView({ row }: { row: Extract<AgentItemRow, { kind: 'plan' }> }) {
  const done = row.entries.filter((e) => e.status === 'completed').length;
  return (
    <div className="card plan" data-row="plan">
      <div className="row">
        <strong className="grow">Plan</strong>
        <span className="muted">
          {done} of {row.entries.length} done
        </span>
      </div>
      {row.explanation && <p className="timeline-text muted">{row.explanation}</p>}
      <ul className="plan-entries">
        {row.entries.map((entry, i) => (
          <li key={i} className={`plan-entry plan-${entry.status}`} data-plan-status={entry.status}>
            <span className="plan-mark" aria-label={SPOKEN[entry.status]}>
              {MARK[entry.status]}
            </span>
            <span className="timeline-text">{entry.text}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
