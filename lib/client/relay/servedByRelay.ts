import { browserRelaySocket } from './relayChannel';
import { relayDeviceUrl } from './relayPairingLink';
import type { RawRelaySocket } from './relaySocket';

/** How long the relay probe may take before the page counts as served by the desktop itself. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * Whether the page came from a relay node rather than a desktop runtime (RLY-1): only a relay
 * accepts a WebSocket at `/relay/device` (a desktop runtime refuses the upgrade). The probe names
 * no desktop (an id that cannot be one), so the node closes it at once and asks no desktop.
 */
export function servedByRelay(location: { protocol: string; host: string }, createSocket: (url: string) => RawRelaySocket = browserRelaySocket): Promise<boolean> {
  return new Promise((resolve) => {
    let socket: RawRelaySocket;
    try {
      socket = createSocket(relayDeviceUrl(location, 'probe'));
    } catch {
      resolve(false);
      return;
    }
    const timer = setTimeout(() => done(false), PROBE_TIMEOUT_MS);
    function done(relay: boolean) {
      clearTimeout(timer);
      resolve(relay);
      socket.close();
    }
    socket.addEventListener('open', () => done(true));
    socket.addEventListener('error', () => done(false));
    socket.addEventListener('close', () => done(false));
  });
}
