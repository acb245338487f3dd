/// <reference lib="webworker" />
import { MEDIA_RENDITION_PREFIX, MEDIA_REQUEST, type MediaRequest } from '../protocol/mediaBridge';
import { relayThroughPage } from './relayThroughPage';

/** A transcode is done before the page hands out the URL, so the head of an answer comes quickly. */
const HEAD_TIMEOUT_MS = 30_000;
const ALWAYS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

const plain = (status: number) =>
  new Response(status === 405 ? 'Method not allowed' : 'Not found', {
    status,
    headers: { ...ALWAYS, 'content-type': 'text/plain; charset=utf-8' },
  });

/**
 * FILE-13: requests for a rendition's URL go to the page that made them (a media element's
 * requests carry its document's client id), which reads the asked range over its own connection
 * to the desktop, the relay included; nothing is fetched from the network or cached.
 */
export function startMediaRenditionRoute(sw: ServiceWorkerGlobalScope): void {
  sw.addEventListener('fetch', (event) => {
    const url = new URL(event.request.url);
    if (url.origin !== sw.location.origin || !url.pathname.startsWith(MEDIA_RENDITION_PREFIX)) return;
    const method = event.request.method;
    if (method !== 'GET' && method !== 'HEAD') return event.respondWith(plain(405));
    event.respondWith(
      (async () => {
        const page = event.clientId ? await sw.clients.get(event.clientId) : undefined;
        if (!page) return plain(404);
        const message: MediaRequest = {
          type: MEDIA_REQUEST,
          method,
          path: url.pathname,
          range: event.request.headers.get('range'),
        };
        return relayThroughPage(page, message, ALWAYS, HEAD_TIMEOUT_MS, () => plain(404));
      })(),
    );
  });
}
