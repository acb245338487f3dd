/// <reference lib="webworker" />
import {
  PREVIEW_HOST_PAGE_PATH,
  PREVIEW_REQUEST,
  PREVIEW_WORKER_PATH,
  SHARED_PREVIEW_PREFIX,
  type PreviewRequest,
} from '../protocol/previewBridge';
import { relayThroughPage } from './relayThroughPage';

/** How long a request waits for the app to start answering before it fails. */
const HEAD_TIMEOUT_MS = 30_000;

/**
 * PRV-3: on every answer, whatever the app said. SEC-9: every document of the preview origin
 * asks for an origin-keyed agent cluster, as the host page does (see previewOriginServer.ts),
 * so Chromium keeps the previewed pages out of the app's process.
 */
const ALWAYS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'origin-agent-cluster': '?1' };

function plain(status: number, extra: Record<string, string> = {}): Response {
  return new Response(status === 204 ? null : status === 405 ? 'Method not allowed' : 'Not found', {
    status,
    headers: { ...ALWAYS, 'content-type': 'text/plain; charset=utf-8', ...extra },
  });
}

/**
 * The host page that relays for this request: on a per-preview origin any host page of it; on a
 * shared origin (ORG-3) the one opened for the id the path starts with.
 */
async function hostFor(sw: ServiceWorkerGlobalScope, path: string): Promise<Client | null> {
  const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const hosts = windows.filter((client) => new URL(client.url).pathname === PREVIEW_HOST_PAGE_PATH);
  const sharedId = SHARED_PREVIEW_PREFIX.exec(path)?.[1] ?? null;
  return hosts.find((client) => new URL(client.url).searchParams.get('id') === sharedId) ?? null;
}

async function answerThroughApp(sw: ServiceWorkerGlobalScope, request: Request, url: URL): Promise<Response> {
  const host = await hostFor(sw, url.pathname);
  if (!host) return plain(404);
  const message: PreviewRequest = {
    type: PREVIEW_REQUEST,
    method: request.method === 'HEAD' ? 'HEAD' : 'GET',
    path: url.pathname,
    range: request.headers.get('range'),
  };
  return relayThroughPage(host, message, ALWAYS, HEAD_TIMEOUT_MS, () => plain(404));
}

/**
 * The service worker in preview-origin mode (PRV-3, PRV-5): every request of the previewed page
 * on this origin is answered through the host page and the app, never by the network, which
 * serves a preview origin nothing but the host page and this script.
 */
export function startPreviewOriginWorker(sw: ServiceWorkerGlobalScope): void {
  sw.addEventListener('install', () => void sw.skipWaiting());
  sw.addEventListener('activate', (event) => event.waitUntil(sw.clients.claim()));
  sw.addEventListener('fetch', (event) => {
    const url = new URL(event.request.url);
    // Other origins are the network's business; the bootstrap page and this script come from the server.
    if (url.origin !== sw.location.origin) return;
    if (url.pathname === PREVIEW_HOST_PAGE_PATH || url.pathname === PREVIEW_WORKER_PATH) return;
    const method = event.request.method;
    if (method === 'OPTIONS') return event.respondWith(plain(204, { allow: 'GET, HEAD, OPTIONS' }));
    if (method !== 'GET' && method !== 'HEAD') return event.respondWith(plain(405, { allow: 'GET, HEAD, OPTIONS' }));
    event.respondWith(answerThroughApp(sw, event.request, url));
  });
}
