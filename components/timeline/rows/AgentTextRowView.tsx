import type { AgentItemRow } from '../../../lib/protocol/rows';
import { LazyMarkdownView } from '../../lazy/LazyMarkdownView';

/** The agent's text as Markdown without raw HTML (TL-1, SEC-3). */
export function AgentTextRowView({ row }: { row: Extract<AgentItemRow, { kind: 'agentText' }> }) {
  return (
    <div className="card agent-text markdown" data-row="agentText" aria-busy={row.streaming}>
      <LazyMarkdownView markdown={row.text} />
      {row.streaming && <span className="muted streaming">writing…</span>}
    </div>
  );
}
