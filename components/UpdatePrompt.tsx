'use client';
import { useEffect, useState } from 'react';
import type { Workbox } from 'workbox-window';

/**
 * Registers the service worker (PWA-1) and offers a new version when one is waiting; the user
 * decides when to reload, so nothing is replaced mid-work.
 */
export function UpdatePrompt() {
  const [waiting, setWaiting] = useState<Workbox | null>(null);

  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    let cancelled = false;
    void import('workbox-window').then(({ Workbox }) => {
      if (cancelled) return;
      const wb = new Workbox('/sw.js', { scope: '/' });
      wb.addEventListener('waiting', () => setWaiting(wb));
      wb.addEventListener('controlling', () => window.location.reload());
      void wb.register();
    });
    return () => {
      cancelled = true;
    };
  }, []);

  if (!waiting) return null;
  return (
    <div className="card row" role="status" style={{ margin: '8px 14px' }}>
      <span className="grow">A new version of HB Code is ready.</span>
      <button className="primary" onClick={() => waiting.messageSkipWaiting()}>
        Reload
      </button>
      <button onClick={() => setWaiting(null)}>Later</button>
    </div>
  );
}
