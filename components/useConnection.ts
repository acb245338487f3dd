'use client';
import { useEffect, useState } from 'react';
import { browserConnectionEnvironment } from '../lib/client/browserConnectionEnvironment';
import { RuntimeConnection, rpcUrlFor, type ConnectionState } from '../lib/client/connection';

/** One RuntimeConnection for the token's lifetime, and its state as React state. */
export function useConnection(token: string | null): ConnectionState {
  const [state, setState] = useState<ConnectionState>({ kind: 'closed' });
  useEffect(() => {
    if (!token) return;
    const connection = new RuntimeConnection({ url: rpcUrlFor(window.location), token, environment: browserConnectionEnvironment });
    const unsubscribe = connection.subscribe(setState);
    connection.start();
    return () => {
      unsubscribe();
      connection.stop();
    };
  }, [token]);
  return state;
}
