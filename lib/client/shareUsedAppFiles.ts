import type { FilesUsedMessage, WarmFilesMessage } from '../protocol/appFilesMessages';

/** How long after the app opens the worker may start fetching the files not used yet (UX-7). */
const WARM_AFTER_MS = 30_000;

function sameOriginPaths(entries: readonly PerformanceEntry[]): string[] {
  const paths: string[] = [];
  for (const entry of entries) {
    const url = new URL(entry.name, window.location.href);
    if (url.origin === window.location.origin && url.search === '') paths.push(url.pathname);
  }
  return paths;
}

/**
 * PWA-1, UX-7: the service worker installs only the shell. Until it controls this page (the first
 * visit), the page's files reach the page past it, so this names each one the page fetched for
 * the worker to cache; once it controls the page it sees them itself. When the app has been open
 * a while and the browser is idle, the worker may fetch the rest, one file at a time.
 * Returns a function that stops it.
 */
export function shareUsedAppFiles(registration: ServiceWorkerRegistration): () => void {
  const post = (message: FilesUsedMessage | WarmFilesMessage) =>
    (registration.active ?? registration.waiting ?? registration.installing)?.postMessage(message);
  const report = (entries: readonly PerformanceEntry[]) => {
    if (navigator.serviceWorker.controller) return;
    const paths = sameOriginPaths(entries);
    if (paths.length > 0) post({ type: 'FILES_USED', paths });
  };
  void navigator.serviceWorker.ready.then(() => report(performance.getEntriesByType('resource')));
  const observer = new PerformanceObserver((list) => {
    void navigator.serviceWorker.ready.then(() => report(list.getEntries()));
  });
  observer.observe({ type: 'resource' });
  const timer = window.setTimeout(() => {
    const warm = () => void navigator.serviceWorker.ready.then(() => post({ type: 'WARM_FILES' }));
    if ('requestIdleCallback' in window) window.requestIdleCallback(warm, { timeout: WARM_AFTER_MS });
    else warm();
  }, WARM_AFTER_MS);
  return () => {
    observer.disconnect();
    window.clearTimeout(timer);
  };
}
