'use client';
import type { ConnectionState } from '../lib/client/connection';
import { RELAY_CLOSE_CODES } from '../lib/relay/relayWire';

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
      <span className="status-label">{LABELS[state.kind]}</span>
    </span>
  );
}

/** The runtime cannot be reached now; a first attempt still under way does not count, so no flash. */
function isShowingSaved(state: ConnectionState): boolean {
  return state.kind === 'waiting' || state.kind === 'offline' || (state.kind === 'connecting' && state.attempt > 0);
}

/** The relay is there but the desktop is not linked to it (RLY-2): the network is fine, the desktop is not. */
function desktopAwayFromRelay(state: ConnectionState): boolean {
  if (state.kind !== 'waiting' && state.kind !== 'connecting') return false;
  return state.closeCode === RELAY_CLOSE_CODES.desktopOffline || state.closeCode === RELAY_CLOSE_CODES.desktopGone;
}

/** The visible offline state (PWA-3): what is on screen comes from this device, not the computer. */
export function OfflineBanner({ state }: { state: ConnectionState }) {
  if (!isShowingSaved(state)) return null;
  return (
    <div className="offline-banner" role="note" data-testid="offline-banner">
      {desktopAwayFromRelay(state)
        ? 'Your desktop is not connected to the relay — showing what this device saved'
        : 'Offline — showing what this device saved'}
    </div>
  );
}
