'use client';
import { useEffect, useState } from 'react';
import type { OutboxEntry } from '../lib/client/appDb';
import { sessionOutbox, startOutboxSender, subscribeOutbox } from '../lib/client/outbox';
import type { RpcClient } from '../lib/client/rpcClient';

/** Sends this device's outbox whenever a connection is open (PWA-4), whatever view is shown. */
export function useOutboxSender(client: RpcClient | null): void {
  useEffect(() => {
    if (!client) return;
    return startOutboxSender(client);
  }, [client]);
}

/** A session's outbox entries on this device, live across tabs. */
export function useSessionOutbox(sessionId: string): OutboxEntry[] {
  const [entries, setEntries] = useState<OutboxEntry[]>([]);
  useEffect(() => {
    let live = true;
    let latest = 0;
    const load = () => {
      const request = ++latest;
      sessionOutbox(sessionId).then(
        (found) => live && request === latest && setEntries(found),
        () => {},
      );
    };
    const unsubscribe = subscribeOutbox(load);
    load();
    return () => {
      live = false;
      unsubscribe();
    };
  }, [sessionId]);
  return entries;
}
