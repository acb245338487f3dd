import type { AgentItemRow } from '../../../lib/protocol/rows';
import { PagedText } from '../PagedText';
import { textSource, type RowContext } from '../rowContext';

/** An event this version does not know: its raw text, paged (TL-1). */
export function RawItemRowView({
  row,
  context,
}: {
  row: Extract<AgentItemRow, { kind: 'rawItem' }>;
  context: RowContext;
}) {
  return (
    <div className="card raw-item" data-row="rawItem">
      <div className="row">
        <span className="pill mono">{row.label}</span>
      </div>
      <PagedText
        client={context.client}
        source={textSource(row, 'text')}
        body={row.text}
        initialLines={8}
        label={`Raw ${row.label}`}
      />
    </div>
  );
}
