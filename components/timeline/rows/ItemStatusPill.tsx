import type { ItemStatus } from '../../../lib/protocol/rows';

const LABEL: Record<ItemStatus, string> = {
  running: 'running',
  completed: 'done',
  failed: 'failed',
  declined: 'declined',
  cancelled: 'cancelled',
};

/**
 * A tool, file change or subagent's state, updated in place as the row is (TL-1). `waiting`: the
 * agent asks the person before it goes on (ACC-4), so it is not running yet.
 */
export function ItemStatusPill({ status, waiting = false }: { status: ItemStatus; waiting?: boolean }) {
  const shown = waiting && status === 'running' ? 'waiting-approval' : status;
  return (
    <span className={`pill item-status item-status-${shown}`} data-status={shown}>
      {shown === 'waiting-approval' ? 'waiting for your approval' : LABEL[status]}
    </span>
  );
}
