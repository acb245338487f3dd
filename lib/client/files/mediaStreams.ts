import { MEDIA_RENDITION_PREFIX, MediaRequestSchema } from '../../protocol/mediaBridge';
import { ResourceMissingError } from '../preview/resourceResponder';
import type { ReadChunk } from '../verifiedChunks';
import { answerMediaRequest } from './growingRendition';

const missing: ReadChunk = () => Promise.reject(new ResourceMissingError());
const streams = new Map<string, ReadChunk>();
let listening = false;

function randomId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Answers the service worker's relayed range requests for the streams this page serves (FILE-13). */
function listen(container: ServiceWorkerContainer): void {
  if (listening) return;
  listening = true;
  container.addEventListener('message', (event: MessageEvent) => {
    const parsed = MediaRequestSchema.safeParse(event.data);
    const port = event.ports[0];
    if (!parsed.success || !port) return;
    const request = parsed.data;
    const read = streams.get(request.path.slice(MEDIA_RENDITION_PREFIX.length)) ?? missing;
    void answerMediaRequest(request, port, read);
  });
  container.startMessages();
}

/**
 * A same-origin URL a media element can play with range requests, its bytes read through `read`
 * 1 MiB at a time as the player asks (FILE-13); null when no service worker controls this page.
 */
export function serveRenditionStream(read: ReadChunk): { url: string; dispose(): void } | null {
  const container = typeof navigator === 'undefined' ? undefined : navigator.serviceWorker;
  if (!container?.controller) return null;
  listen(container);
  const id = randomId();
  streams.set(id, read);
  return { url: `${MEDIA_RENDITION_PREFIX}${id}`, dispose: () => streams.delete(id) };
}
