'use client';
import { useEffect, useRef } from 'react';
import type { AppRoute } from '../../lib/client/appRoute';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { Session } from '../../lib/protocol/rows';

/** PUSH-1: `#/?session=S` (a tapped notification) opens session S once the app is connected. */
export function useOpenSessionFromLink(client: RpcClient | null, route: AppRoute, open: (session: Session) => void): void {
  // Each link opens its session once, not again when the connection comes back later.
  const opened = useRef<AppRoute | null>(null);
  useEffect(() => {
    if (!client || route.kind !== 'sessions' || !route.sessionId || opened.current === route) return;
    const wanted = route.sessionId;
    let cancelled = false;
    void client.call('sessions.list').then(
      ({ sessions }) => {
        const session = sessions.find((s) => s.id === wanted);
        if (cancelled || !session) return;
        opened.current = route;
        open(session);
        // The link did its work: Back and reload show the session list, not this link again.
        history.replaceState(null, '', '#/');
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [client, route, open]);
}
