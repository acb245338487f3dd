import type { RpcClient } from '../../lib/client/rpcClient';
import type { AgentItemRow, CommandRow, TimelineRow } from '../../lib/protocol/rows';
import type { ItemTextSource } from './useItemText';

/** What every row view may need besides its row. */
export interface RowContext {
  client: RpcClient | null;
  /** The clock running rows measure against (ticks while something runs). */
  now: number;
  onOpenCommand: (row: CommandRow) => void;
  onOpenSubagent: (row: Extract<TimelineRow, { kind: 'subagent' }>) => void;
  /** The agent's items waiting for the person's answer (ACC-4): no timer, no Stop, "waiting for your approval". */
  waitingForApproval: ReadonlySet<string>;
}

/** Where a long text of this item is read from (`sessions.itemText`). */
export function textSource(row: AgentItemRow, field: string): ItemTextSource {
  return { sessionId: row.sessionId, parentItemId: row.parentItemId, itemId: row.itemId, field };
}
