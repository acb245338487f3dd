'use client';
import { useEffect, useState } from 'react';
// Imported with the first screen: it registers the worker on every screen, so loading it apart
// would only add a round trip before the shell is installed (UX-5).
import { Workbox } from 'workbox-window';
import { shareUsedAppFiles } from '../lib/client/shareUsedAppFiles';
import { watchNewWorkers } from '../lib/client/install/watchNewWorkers';

/**
 * Registers the service worker (PWA-1) and offers a new version when one is waiting; the user
 * decides when to reload, so nothing is replaced mid-work.
 */
export function UpdatePrompt() {
  const [waiting, setWaiting] = useState<ServiceWorker | null>(null);

  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    let cancelled = false;
    const stops: (() => void)[] = [];
    void new Workbox('/sw.js', { scope: '/' }).register().then((registration) => {
      if (!registration || cancelled) return;
      stops.push(shareUsedAppFiles(registration), watchNewWorkers(registration, setWaiting));
    });
    return () => {
      cancelled = true;
      for (const stop of stops) stop();
    };
  }, []);

  if (!waiting) return null;
  return (
    <div className="card row" role="status" style={{ margin: '8px 14px' }}>
      <span className="grow">A new version of HB Code is ready.</span>
      <button className="primary" onClick={() => waiting.postMessage({ type: 'SKIP_WAITING' })}>
        Reload
      </button>
      <button onClick={() => setWaiting(null)}>Later</button>
    </div>
  );
}
