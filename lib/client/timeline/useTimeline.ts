'use client';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RpcClient } from '../rpcClient';
import { TimelineStore, type TimelineSnapshot } from './timelineStore';

export interface UseTimeline extends TimelineSnapshot {
  /** Reads the page just older than the rows shown; does nothing while one is loading or at the first row. */
  loadOlder: () => Promise<void>;
  /** Reads the timeline again from its newest page, dropping the rows shown. */
  reload: () => Promise<void>;
}

const OPENING: TimelineSnapshot = {
  rows: [],
  hasOlder: false,
  loadingOlder: false,
  opening: true,
  offline: false,
  savedAt: null,
  error: null,
  errorCode: null,
};

/**
 * One timeline for a screen (TL-3, TL-4): the newest rows first, live rows merged as they come,
 * older pages on `loadOlder`, and the pages read before when the runtime cannot be reached.
 * `client` null means not connected: the rows this device saved are shown, marked `offline`. A
 * new client (a reconnect) keeps the rows shown and reads the newest page again.
 */
export function useTimeline(
  client: RpcClient | null,
  sessionId: string,
  parentItemId: string | null = null,
): UseTimeline {
  const [store, setStore] = useState<TimelineStore | null>(null);
  const [snapshot, setSnapshot] = useState<TimelineSnapshot>(OPENING);
  const latestClient = useRef(client);
  // Runs before the effect below (effects run in order), so a new store starts with this client.
  useEffect(() => {
    latestClient.current = client;
  });

  useEffect(() => {
    const created = new TimelineStore({ client: latestClient.current, sessionId, parentItemId });
    setStore(created);
    setSnapshot(OPENING);
    const stop = created.subscribe(() => setSnapshot(created.getSnapshot()));
    void created.open();
    return () => {
      stop();
      created.close();
    };
  }, [sessionId, parentItemId]);

  useEffect(() => {
    store?.setClient(client);
  }, [store, client]);

  const loadOlder = useCallback(() => store?.loadOlder() ?? Promise.resolve(), [store]);
  const reload = useCallback(() => store?.reload() ?? Promise.resolve(), [store]);
  return { ...snapshot, loadOlder, reload };
}
