'use client';
import type { ConnectionState } from '../lib/client/connection';

const LABELS: Record<ConnectionState['kind'], string> = {
  connecting: 'Connecting…',
  open: 'Connected',
  waiting: 'Reconnecting…',
  offline: 'Offline',
  unauthorized: 'Not paired',
  closed: 'Disconnected',
};

export function ConnectionStatus({ state }: { state: ConnectionState }) {
  return (
    <span className="status" role="status" aria-live="polite" data-connection={state.kind}>
      <span className={`dot ${state.kind}`} aria-hidden="true" />
      {LABELS[state.kind]}
    </span>
  );
}
