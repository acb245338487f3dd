import type { AgentItemRow } from '../../../lib/protocol/rows';
import { PagedText } from '../PagedText';
import { textSource, type RowContext } from '../rowContext';
import { ItemStatusPill } from './ItemStatusPill';
import { SessionMessageTo, sessionMessageRecipient } from './SessionMessageLink';

/** Any other tool call: one row, completed in place with its result (TL-1). */
export function ToolCallRowView({
  row,
  context,
}: {
  row: Extract<AgentItemRow, { kind: 'toolCall' }>;
  context: RowContext;
}) {
  const recipient = sessionMessageRecipient(row);
  return (
    <div className="card tool-call" data-row="toolCall">
      <div className="row">
        <span className="pill mono">{row.tool}</span>
        <span className="grow timeline-text">{row.title}</span>
        <ItemStatusPill status={row.status} waiting={context.waitingForApproval.has(row.itemId)} />
      </div>
      {recipient && <SessionMessageTo sessionId={recipient} />}
      {row.error && <p className="error timeline-text">{row.error}</p>}
      {row.input.byteLength > 0 && (
        <details className="tool-input">
          <summary className="muted">Input</summary>
          <PagedText
            client={context.client}
            source={textSource(row, 'input')}
            body={row.input}
            label={`Input of ${row.title}`}
          />
        </details>
      )}
      {row.result && (
        <div className="tool-result">
          <PagedText
            client={context.client}
            source={textSource(row, 'result')}
            body={row.result}
            initialLines={6}
            label={`Result of ${row.title}`}
          />
          {/* Over the result's corner: it labels the box without making the row taller. */}
          <span className="tool-result-label" aria-hidden="true">
            Result
          </span>
        </div>
      )}
    </div>
  );
}
