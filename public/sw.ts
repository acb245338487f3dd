/// <reference lib="webworker" />
// The app's service worker (PWA-1), compiled to /sw.js by scripts/build-app.mjs, which injects
// the precache manifest of the shell and the list of the app's other files. It never takes over
// by itself: the page offers the update (UpdatePrompt) and sends SKIP_WAITING when the user accepts.
// The same script is a preview origin's worker (PRV-5) when it runs from PREVIEW_WORKER_PATH,
// which only preview origins serve: there it answers the previewed page through the app instead.
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import type { AppFileEntry } from '../lib/protocol/appFilesMessages';
import { PREVIEW_WORKER_PATH } from '../lib/protocol/previewBridge';
import { startLazyAppFiles } from '../lib/serviceWorker/lazyAppFiles';
import { startPreviewOriginWorker } from '../lib/serviceWorker/previewOriginWorker';
import { startPushHandlers } from '../lib/serviceWorker/pushHandlers';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: AppFileEntry[]; __HBCODE_LAZY_FILES: AppFileEntry[] };

function startAppShellWorker(): void {
  cleanupOutdatedCaches();
  // Installing fetches only the shell: the pages, the first screen's code and styles, the
  // manifest and icons (UX-5). Everything else is cached when first used or when a page is idle.
  precacheAndRoute(self.__WB_MANIFEST);
  startLazyAppFiles(self, self.__HBCODE_LAZY_FILES);

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
