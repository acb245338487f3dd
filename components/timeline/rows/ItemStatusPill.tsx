import type { ItemStatus } from '../../../lib/protocol/rows';

const LABEL: Record<ItemStatus, string> = { running: 'running', completed: 'done', failed: 'failed', declined: 'declined', cancelled: 'cancelled' };

/** A tool, file change or subagent's state, updated in place as the row is (TL-1). */
export function ItemStatusPill({ status }: { status: ItemStatus }) {
  return (
    <span className={`pill item-status item-status-${status}`} data-status={status}>
      {LABEL[status]}
    </span>
  );
}
