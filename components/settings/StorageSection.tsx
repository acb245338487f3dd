'use client';
import { useCallback, useEffect, useState } from 'react';
import { clearOfflineData, readStorageUse, type StorageUse } from '../../lib/client/storage/offlineData';
import { formatBytes } from '../formatting';

type Clearing = 'idle' | 'asking' | 'clearing' | 'cleared' | { error: string };

/**
 * What this device keeps to read offline (PWA-6): the browser's estimate of it, whether the
 * browser keeps it under pressure, and a way to clear it after a confirmation.
 */
export function StorageSection() {
  const [use, setUse] = useState<StorageUse | null | undefined>(undefined);
  const [clearing, setClearing] = useState<Clearing>('idle');
  const refresh = useCallback(() => {
    readStorageUse().then(setUse, () => setUse(null));
  }, []);
  useEffect(refresh, [refresh]);

  async function clear() {
    setClearing('clearing');
    try {
      await clearOfflineData();
      setClearing('cleared');
    } catch (error) {
      setClearing({ error: (error as Error).message });
    }
    refresh();
  }

  return (
    <section className="card" aria-labelledby="storage-title">
      <h2 id="storage-title">Storage on this device</h2>
      {use === undefined && <p className="muted">Measuring…</p>}
      {use === null && <p className="muted">This browser does not say how much it stores.</p>}
      {use && (
        <>
          <p data-testid="storage-use">
            <strong>{formatBytes(use.usage)}</strong> used of {formatBytes(use.quota)} this browser allows.
          </p>
          <p className="muted" data-testid="storage-persisted">
            {use.persisted
              ? 'The browser keeps it even when space runs low.'
              : 'The browser may remove it when space runs low; it is asked to keep it once you save something to read offline.'}
          </p>
        </>
      )}
      <p className="muted">
        Clearing removes the output, files, pages and timelines saved to read offline. This device stays paired, and
        messages not sent yet stay queued.
      </p>
      {clearing === 'asking' ? (
        <div className="row" role="alertdialog" aria-label="Clear what this device saved?">
          <span className="grow">Clear what this device saved to read offline?</span>
          <button className="danger" onClick={() => void clear()}>
            Clear saved data
          </button>
          <button onClick={() => setClearing('idle')}>Cancel</button>
        </div>
      ) : (
        <div className="row">
          <button onClick={() => setClearing('asking')} disabled={clearing === 'clearing'}>
            Clear saved data…
          </button>
          {clearing === 'cleared' && (
            <span role="status" className="muted">
              Cleared.
            </span>
          )}
          {typeof clearing === 'object' && (
            <span role="alert" className="error">
              Could not clear: {clearing.error}
            </span>
          )}
        </div>
      )}
    </section>
  );
}
