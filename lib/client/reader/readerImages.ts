import type { RpcClient } from '../rpcClient';

/** The Cache Storage bucket of this device's copies of the reader's images (MD-5); cleared with the other offline copies. */
export const READER_IMAGE_CACHE = 'hbcode-reader-images';
/** The most images kept; the oldest go first. */
const MAX_KEPT_IMAGES = 400;
/** Fetches the desktop does for one device at a time. */
const MAX_AT_ONCE = 4;

/** The key of an image's copy: a same-origin address that is never requested. */
const keyOf = (url: string) => `/reader-image?url=${encodeURIComponent(url)}`;

let running = 0;
const waiting: (() => void)[] = [];

async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

async function kept(url: string): Promise<Blob | null> {
  if (typeof caches === 'undefined') return null;
  const found = await (await caches.open(READER_IMAGE_CACHE)).match(keyOf(url));
  return found ? found.blob() : null;
}

async function keep(url: string, blob: Blob): Promise<void> {
  if (typeof caches === 'undefined') return;
  const cache = await caches.open(READER_IMAGE_CACHE);
  await cache.put(keyOf(url), new Response(blob, { headers: { 'content-type': blob.type } }));
  const keys = await cache.keys();
  for (const old of keys.slice(0, Math.max(0, keys.length - MAX_KEPT_IMAGES))) await cache.delete(old);
}

/**
 * An image of a page read as Markdown (MD-5): this device's copy when it has one, else fetched by
 * the desktop (`web.fetchImage`, at most MAX_AT_ONCE at a time) and kept. Null when offline with no
 * copy; a refusal throws with the desktop's words.
 */
export async function readerImage(client: RpcClient | null, url: string): Promise<Blob | null> {
  const copy = await kept(url).catch(() => null);
  if (copy) return copy;
  if (!client) return null;
  const image = await slot(() => client.call('web.fetchImage', { url }));
  const bytes = Uint8Array.from(atob(image.dataBase64), (c) => c.charCodeAt(0));
  const blob = new Blob([bytes], { type: image.mimeType });
  await keep(url, blob).catch((e: unknown) => console.warn('Could not keep a copy of the image', e));
  return blob;
}

/** Forgets every kept image (Settings › clear offline copies, sign-out). */
export async function clearReaderImages(): Promise<void> {
  if (typeof caches !== 'undefined') await caches.delete(READER_IMAGE_CACHE);
}
