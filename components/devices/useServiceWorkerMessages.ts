'use client';
import { useEffect, useRef } from 'react';
import { ViewingSessionMessageSchema, WorkerToPageMessageSchema } from '../../lib/protocol/pushMessages';

type ViewingSession = ReturnType<typeof ViewingSessionMessageSchema.parse>;

/**
 * PUSH-1, page side: tells the service worker which session is on screen (so its news is not
 * notified here) and opens a tapped notification's address when the worker asks.
 */
export function useServiceWorkerMessages(sessionOnScreen: string | null): void {
  const shown = useRef(sessionOnScreen);
  useEffect(() => {
    shown.current = sessionOnScreen;
  }, [sessionOnScreen]);

  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    const onMessage = (event: MessageEvent) => {
      const message = WorkerToPageMessageSchema.safeParse(event.data);
      if (!message.success) return;
      if (message.data.type === 'OPEN_SESSION') {
        const target = new URL(message.data.url);
        if (target.origin === location.origin) location.hash = target.hash;
        return;
      }
      const reply: ViewingSession = {
        type: 'VIEWING_SESSION',
        sessionId: document.visibilityState === 'visible' ? shown.current : null,
      };
      event.ports[0]?.postMessage(reply);
    };
    navigator.serviceWorker.addEventListener('message', onMessage);
    // Messages wait until the page says it listens (an addEventListener alone does not).
    navigator.serviceWorker.startMessages();
    return () => navigator.serviceWorker.removeEventListener('message', onMessage);
  }, []);
}
