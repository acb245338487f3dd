/// <reference lib="webworker" />
import { sha256Hex } from '../protocol/buildDigest';
import type { AppFileEntry } from '../protocol/appFilesMessages';

/**
 * Fetches one file of the build and checks its bytes against the SHA-256 the build names (RLY-5):
 * a file of another build (the desktop rebuilt meanwhile) is not served as this one's. Resolves with the response
 * rebuilt from the checked bytes, or null (with a console warning) when the bytes differ; a
 * response that is not a plain same-origin success is passed on unchecked and never cached.
 */
export async function fetchVerified(file: AppFileEntry): Promise<{ response: Response; verified: boolean } | null> {
  const response = await fetch(file.url);
  if (!response.ok || response.type !== 'basic') return { response, verified: false };
  const bytes = await response.arrayBuffer();
  if ((await sha256Hex(bytes)) !== file.sha256) {
    console.warn(`${file.url} does not match the installed build: refused`);
    return null;
  }
  return {
    response: new Response(bytes, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    }),
    verified: true,
  };
}

/** What a page gets for a file whose bytes are not the build's. */
export function mismatchResponse(file: AppFileEntry): Response {
  return new Response(`${file.url} does not match the installed app build.`, {
    status: 502,
    statusText: 'Bad Gateway',
    headers: { 'content-type': 'text/plain' },
  });
}

/**
 * The build's files the worker neither precaches nor caches (the pages' RSC payloads, the install
 * dialog's screenshots): answered from the network, but only when their bytes are the build's.
 */
export function startVerifiedPassThrough(self: ServiceWorkerGlobalScope, files: readonly AppFileEntry[]): void {
  const byPath = new Map(files.map((file) => [file.url, file]));
  self.addEventListener('fetch', (event: FetchEvent) => {
    if (event.request.method !== 'GET') return;
    const url = new URL(event.request.url);
    const file = url.origin === self.location.origin && url.search === '' ? byPath.get(url.pathname) : undefined;
    if (file) event.respondWith(fetchVerified(file).then((checked) => checked?.response ?? mismatchResponse(file)));
  });
}
