'use client';
import { useEffect } from 'react';
import type { RpcClient } from '../rpcClient';

/**
 * UX-8: while a session is open and the page is in view, what it does is seen on this device, so
 * the list's "done, unread" badge never comes for a turn that ended on screen. The runtime is told
 * when the session is shown (it then marks each change seen as it happens) and when it is not any
 * more: left, or the page hidden. A hidden page sees nothing.
 */
export function useSeenWhileOpen(client: RpcClient | null, sessionId: string): void {
  useEffect(() => {
    if (!client) return;
    let shown = false;
    const tell = (open: boolean) => {
      shown = open;
      // Best effort: a badge left behind by a lost call goes at the next open.
      client.call('sessions.seen', { sessionId, open }).catch(() => undefined);
    };
    const follow = () => {
      const visible = document.visibilityState === 'visible';
      if (visible !== shown) tell(visible);
    };
    follow();
    document.addEventListener('visibilitychange', follow);
    return () => {
      document.removeEventListener('visibilitychange', follow);
      if (shown) tell(false);
    };
  }, [client, sessionId]);
}
