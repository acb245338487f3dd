'use client';
import { useEffect, useState } from 'react';
import type { DevicePairing } from '../lib/client/appDb';
import { browserConnectionEnvironment } from '../lib/client/browserConnectionEnvironment';
import { RuntimeConnection, rpcUrlFor, type ConnectionState } from '../lib/client/connection';
import { relayConnectionEnvironment } from '../lib/client/relay/relayChannel';
import { relayDeviceUrl } from '../lib/client/relay/relayPairingLink';

/** The connection a pairing makes: the runtime's `/rpc` with its token, or a relay channel with its key (RLY-2). */
function connectionFor(pairing: DevicePairing): RuntimeConnection {
  if (pairing.relay) {
    return new RuntimeConnection({
      url: relayDeviceUrl(window.location, pairing.relay.desktopId),
      token: '',
      authenticate: 'channel',
      environment: relayConnectionEnvironment(browserConnectionEnvironment, pairing.relay, window.location),
    });
  }
  return new RuntimeConnection({ url: rpcUrlFor(window.location), token: pairing.token, environment: browserConnectionEnvironment });
}

/** One RuntimeConnection for the pairing's lifetime, and its state as React state. */
export function useConnection(pairing: DevicePairing | null): ConnectionState {
  const [state, setState] = useState<ConnectionState>({ kind: 'closed' });
  useEffect(() => {
    if (!pairing) return;
    const connection = connectionFor(pairing);
    const unsubscribe = connection.subscribe(setState);
    connection.start();
    return () => {
      unsubscribe();
      connection.stop();
    };
  }, [pairing]);
  return state;
}
