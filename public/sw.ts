/// <reference lib="webworker" />
// The app's service worker (PWA-1), compiled to /sw.js by scripts/build-app.mjs, which injects
// the build's list of files with their SHA-256 and which of them make the shell. It never takes
// over by itself: the page offers the update (UpdatePrompt) and sends SKIP_WAITING when the user
// accepts. Only the desktop serves it (RLY-1): a relay passes its bytes through TLS unread.
// The same script is a preview origin's worker (PRV-5) when it runs from PREVIEW_WORKER_PATH,
// which only preview origins serve: there it answers the previewed page through the app instead.
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import type { AppFileEntry } from '../lib/protocol/appFilesMessages';
import { integrityOf, type BuildFiles } from '../lib/protocol/buildDigest';
import { PREVIEW_WORKER_PATH } from '../lib/protocol/previewBridge';
import { startLazyAppFiles } from '../lib/serviceWorker/lazyAppFiles';
import { startMediaRenditionRoute } from '../lib/serviceWorker/mediaRenditionRoute';
import { startPreviewOriginWorker } from '../lib/serviceWorker/previewOriginWorker';
import { startPushHandlers } from '../lib/serviceWorker/pushHandlers';
import { startVerifiedPassThrough } from '../lib/serviceWorker/verifiedFetch';

declare const self: ServiceWorkerGlobalScope & {
  __HBCODE_BUILD: { files: BuildFiles; shell: string[]; lazy: string[] };
};

function startAppShellWorker(): void {
  const { files, shell, lazy } = self.__HBCODE_BUILD;
  // First, so a rendition's range requests are never taken for app files (FILE-13).
  startMediaRenditionRoute(self);
  // Every entry is made from the list the digest covers: the full SHA-256 is the revision, so a
  // cached copy is only ever reused for the very same bytes.
  const entryOf = (url: string): AppFileEntry => ({ url, revision: files[url]!, sha256: files[url]! });
  cleanupOutdatedCaches();
  // Installing fetches only the shell: the pages, the first screen's code and styles, the
  // manifest and icons (UX-5, UX-7). Everything else is cached when first used or when a page is idle.
  // SRI integrity: a shell file whose bytes are not the list's fails the install, so a build
  // half-updated on the desktop never installs as a mix of two builds.
  precacheAndRoute(shell.map((url) => ({ ...entryOf(url), integrity: integrityOf(files[url]!) })));
  startLazyAppFiles(self, lazy.map(entryOf));
  const cached = new Set([...shell, ...lazy]);
  startVerifiedPassThrough(
    self,
    Object.keys(files)
      .filter((url) => !cached.has(url))
      .map(entryOf),
  );

  // Every navigation gets the app shell from the cache, so the app opens with the runtime stopped.
  registerRoute(new NavigationRoute(createHandlerBoundToURL('/index.html'), { denylist: [/^\/rpc$/, /^\/healthz$/] }));

  self.addEventListener('message', (event: ExtendableMessageEvent) => {
    const data = event.data as { type?: unknown } | null;
    if (data?.type === 'SKIP_WAITING') void self.skipWaiting();
  });
  startPushHandlers(self);
}

if (self.location.pathname === PREVIEW_WORKER_PATH) startPreviewOriginWorker(self);
else startAppShellWorker();
