'use client';
import { useEffect } from 'react';
import { sendPendingSignOut } from '../../lib/client/devices/signOut';

/** How often a queued sign-out is tried again while the runtime cannot be reached. */
const RETRY_MS = 15_000;

/** DEV-1: a sign-out made offline is sent when the runtime can be reached again. */
export function usePendingSignOut(signedOutAt: number | null): void {
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const attempt = async () => {
      clearTimeout(timer);
      if (stopped || !navigator.onLine) return;
      const done = await sendPendingSignOut(window.location).catch(() => false);
      if (!done && !stopped) timer = setTimeout(() => void attempt(), RETRY_MS);
    };
    void attempt();
    const onOnline = () => void attempt();
    window.addEventListener('online', onOnline);
    return () => {
      stopped = true;
      clearTimeout(timer);
      window.removeEventListener('online', onOnline);
    };
  }, [signedOutAt]);
}
