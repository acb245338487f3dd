'use client';
import { useEffect, useState } from 'react';
import type { DevicePairing } from '../lib/client/appDb';
import { browserConnectionEnvironment } from '../lib/client/browserConnectionEnvironment';
import { RuntimeConnection, rpcUrlFor, type ConnectionState } from '../lib/client/connection';

/**
 * The connection a pairing makes: the `/rpc` of the origin that served the page, with its token.
 * Through a relay that origin is the desktop's own name, its TLS ended by the desktop (RLY-2, RLY-3).
 */
function connectionFor(pairing: DevicePairing): RuntimeConnection {
  return new RuntimeConnection({
    url: rpcUrlFor(window.location),
    token: pairing.token,
    environment: browserConnectionEnvironment,
  });
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
