'use client';
import { useEffect, useState } from 'react';
import type { RpcClient } from '../rpcClient';
import { TimelineStore, type TimelineSnapshot } from './timelineStore';

export interface UseTimeline extends Omit<TimelineSnapshot, 'hasOlder'> {
  /** Reads the page just older than the rows shown; does nothing while one is loading or at the first row. */
  loadOlder: () => Promise<void>;
  hasOlder: boolean;
}

const OPENING: TimelineSnapshot = { rows: [], hasOlder: false, loadingOlder: false, opening: true, offline: false, savedAt: null, error: null };

/**
 * One timeline for a screen (TL-3, TL-4): the newest rows first, live rows merged as they come,
 * older pages on `loadOlder`, and the pages read before when the runtime cannot be reached.
 * `client` null means not connected: the rows this device saved are shown, marked `offline`.
 */
export function useTimeline(client: RpcClient | null, sessionId: string, parentItemId: string | null = null): UseTimeline {
  const [store, setStore] = useState<TimelineStore | null>(null);
  const [snapshot, setSnapshot] = useState<TimelineSnapshot>(OPENING);

  useEffect(() => {
    const created = new TimelineStore({ client, sessionId, parentItemId });
    setStore(created);
    setSnapshot(OPENING);
    const stop = created.subscribe(() => setSnapshot(created.getSnapshot()));
    void created.open();
    return () => {
      stop();
      created.close();
    };
  }, [client, sessionId, parentItemId]);

  return { ...snapshot, loadOlder: () => store?.loadOlder() ?? Promise.resolve() };
}
