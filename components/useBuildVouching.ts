'use client';
import { useEffect, useRef } from 'react';
import { answerVouchRequests } from '../lib/client/buildVouch/answerVouchRequests';
import { checkInstalledBuild } from '../lib/client/buildVouch/checkInstalledBuild';
import type { RpcClient } from '../lib/client/rpcClient';

/**
 * RLY-5: answers a new worker's vouch requests with the desktop's build digest over this page's
 * connection (waiting for one), and once connected compares this page's build with the desktop's.
 */
export function useBuildVouching(client: RpcClient | null): void {
  const waiters = useRef<((client: RpcClient) => void)[]>([]);
  const latest = useRef<RpcClient | null>(client);

  useEffect(() => {
    latest.current = client;
    if (!client || !('serviceWorker' in navigator)) return;
    for (const resolve of waiters.current.splice(0)) resolve(client);
    void checkInstalledBuild(client, navigator.serviceWorker).catch((error: unknown) => console.warn('Could not compare the app build with the desktop', error));
  }, [client]);

  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    const connected = () => (latest.current ? Promise.resolve(latest.current) : new Promise<RpcClient>((resolve) => waiters.current.push(resolve)));
    return answerVouchRequests(navigator.serviceWorker, connected);
  }, []);
}
