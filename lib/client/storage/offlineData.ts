import { clearReadCache } from '../readCache';

export interface StorageUse {
  /** Bytes this origin uses (IndexedDB, caches, the service worker), as the browser estimates. */
  usage: number;
  /** Bytes the browser would let it use. */
  quota: number;
  /** Whether the browser keeps this storage under pressure (PWA-6). */
  persisted: boolean;
}

/** The browser's estimate of this app's storage, or null where the browser has no estimate. */
export async function readStorageUse(): Promise<StorageUse | null> {
  const storage = navigator.storage as StorageManager | undefined;
  if (!storage?.estimate) return null;
  const [estimate, persisted] = await Promise.all([
    storage.estimate(),
    storage.persisted ? storage.persisted() : Promise.resolve(false),
  ]);
  return { usage: estimate.usage ?? 0, quota: estimate.quota ?? 0, persisted };
}

/**
 * The service worker's precache holds the app shell itself (PWA-1): clearing it would stop the
 * app from opening offline, so only the other (runtime) caches go.
 */
const isAppShellCache = (name: string) => name.includes('precache');

/**
 * Clears what was saved to read offline (PWA-6, PWA-3): the output pages, file chunks, reader pages,
 * timeline pages and lists in IndexedDB, and the service worker's runtime caches. The pairing
 * token and the unsent outbox stay (PWA-4, DEV-1): they are not copies of anything.
 */
export async function clearOfflineData(): Promise<void> {
  await clearReadCache();
  if (typeof caches === 'undefined') return;
  const names = await caches.keys();
  await Promise.all(names.filter((name) => !isAppShellCache(name)).map((name) => caches.delete(name)));
}
