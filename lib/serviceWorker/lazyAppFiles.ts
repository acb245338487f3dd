/// <reference lib="webworker" />
import { FilesUsedMessageSchema, WarmFilesMessageSchema, type AppFileEntry } from '../protocol/appFilesMessages';
import { fetchVerified, mismatchResponse } from './verifiedFetch';

/** Where the app's files past the shell are kept, each under its path and build revision. */
export const LAZY_FILES_CACHE = 'hbcode-app-files';

/**
 * The app's files that are not part of the shell (UX-7, PWA-1): none is fetched at install; each
 * is cached the first time it is used (a fetch through this worker, or a page naming the files it
 * fetched before this worker controlled it), and the rest when a page says it is idle, one file
 * at a time. A file answers from the cache only for the revision this build names, so a new
 * version never serves an old worker script from its stable address. A file whose bytes are not
 * the ones the build names is neither cached nor served (RLY-5).
 */
export function startLazyAppFiles(self: ServiceWorkerGlobalScope, files: readonly AppFileEntry[]): void {
  const byPath = new Map(files.map((file) => [file.url, file]));
  const keyOf = (file: AppFileEntry) =>
    new URL(`${file.url}?hbcode-revision=${file.revision}`, self.location.origin).href;
  const current = new Set(files.map(keyOf));
  let warming: Promise<void> | null = null;

  async function fetchAndKeep(cache: Cache, file: AppFileEntry): Promise<Response> {
    const checked = await fetchVerified(file);
    if (!checked) return mismatchResponse(file);
    if (checked.verified) await cache.put(keyOf(file), checked.response.clone());
    return checked.response;
  }

  async function cachedOrFetched(file: AppFileEntry): Promise<Response> {
    const cache = await caches.open(LAZY_FILES_CACHE);
    return (await cache.match(keyOf(file))) ?? fetchAndKeep(cache, file);
  }

  async function keepMissing(paths: Iterable<string>): Promise<void> {
    const cache = await caches.open(LAZY_FILES_CACHE);
    // One at a time: this runs beside the page's own requests and must not crowd them out.
    for (const path of paths) {
      const file = byPath.get(path);
      if (!file || (await cache.match(keyOf(file)))) continue;
      await fetchAndKeep(cache, file).catch(() => undefined);
    }
  }

  self.addEventListener('fetch', (event: FetchEvent) => {
    if (event.request.method !== 'GET') return;
    const url = new URL(event.request.url);
    const file = url.origin === self.location.origin && url.search === '' ? byPath.get(url.pathname) : undefined;
    if (file) event.respondWith(cachedOrFetched(file));
  });

  self.addEventListener('message', (event: ExtendableMessageEvent) => {
    const used = FilesUsedMessageSchema.safeParse(event.data);
    if (used.success) {
      event.waitUntil(keepMissing(used.data.paths));
      return;
    }
    if (WarmFilesMessageSchema.safeParse(event.data).success) {
      warming ??= keepMissing(byPath.keys()).finally(() => {
        warming = null;
      });
      event.waitUntil(warming);
    }
  });

  // A new version drops the files of the versions before it (UX-7).
  self.addEventListener('activate', (event: ExtendableEvent) => {
    event.waitUntil(
      caches.open(LAZY_FILES_CACHE).then(async (cache) => {
        for (const request of await cache.keys()) if (!current.has(request.url)) await cache.delete(request);
      }),
    );
  });
}
