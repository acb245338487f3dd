'use client';
import { useEffect, useState } from 'react';
// Imported with the first screen: it registers the worker on every screen, so loading it apart
// would only add a round trip before the shell is installed (UX-5).
import { Workbox } from 'workbox-window';
import { shareUsedAppFiles } from '../lib/client/shareUsedAppFiles';

/**
 * Registers the service worker (PWA-1) and offers a new version when one is waiting; the user
 * decides when to reload, so nothing is replaced mid-work.
 */
export function UpdatePrompt() {
  const [waiting, setWaiting] = useState<Workbox | null>(null);

  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    let cancelled = false;
    let stopSharing: (() => void) | undefined;
    const wb = new Workbox('/sw.js', { scope: '/' });
    wb.addEventListener('waiting', () => setWaiting(wb));
    wb.addEventListener('controlling', () => window.location.reload());
    void wb.register().then((registration) => {
      if (registration && !cancelled) stopSharing = shareUsedAppFiles(registration);
    });
    return () => {
      cancelled = true;
      stopSharing?.();
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
