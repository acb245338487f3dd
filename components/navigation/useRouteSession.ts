'use client';
import { useEffect, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import { readSessionsSnapshot } from '../../lib/client/snapshotCache';
import type { Session } from '../../lib/protocol/rows';

export type RouteSession =
  | { kind: 'none' }
  | { kind: 'loading'; note: string | null }
  | { kind: 'found'; session: Session }
  | { kind: 'missing'; reason: string };

/**
 * The session an address names (UX-1): the one the app just opened, else the runtime's list,
 * else, offline, the list this device saved (PWA-3). Follows renames from any device.
 */
export function useRouteSession(
  client: RpcClient | null,
  sessionId: string | null,
  known: Session | null,
): RouteSession {
  const [looked, setLooked] = useState<{ id: string; session: Session | null; authoritative: boolean } | null>(null);

  useEffect(() => {
    if (!sessionId) return;
    let live = true;
    const lookUp = async () => {
      if (client) {
        const { sessions } = await client.call('sessions.list');
        if (live)
          setLooked({ id: sessionId, session: sessions.find((s) => s.id === sessionId) ?? null, authoritative: true });
        return;
      }
      const saved = await readSessionsSnapshot();
      if (live)
        setLooked({
          id: sessionId,
          session: saved?.value.sessions.find((s) => s.id === sessionId) ?? null,
          authoritative: false,
        });
    };
    lookUp().catch((e: unknown) => console.warn('Could not look the session up', e));
    const stop = client?.onNotification('sessions.changed', (params) => {
      if (params.sessionId === sessionId) lookUp().catch(() => undefined);
    });
    return () => {
      live = false;
      stop?.();
    };
  }, [client, sessionId]);

  if (!sessionId) return { kind: 'none' };
  if (looked?.id === sessionId && looked.session) return { kind: 'found', session: looked.session };
  if (known?.id === sessionId) return { kind: 'found', session: known };
  if (looked?.id !== sessionId) return { kind: 'loading', note: null };
  // Offline, only the runtime can say a session is gone: wait for it rather than leave the address.
  return looked.authoritative
    ? { kind: 'missing', reason: 'That session is not on this computer any more, so here are your sessions.' }
    : { kind: 'loading', note: 'This session is not saved on this device; it opens once the computer can be reached.' };
}
