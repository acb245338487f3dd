import { isGrowing } from './growingRendition';
import { sha256Hex, type ChunkHeader, type ReadChunk, type VerifiedChunk } from '../verifiedChunks';
import type { RenditionAsk } from './renditionChunks';

/** The Cache Storage bucket of the renditions this device viewed (FILE-15); cleared with the other offline copies. */
export const KEPT_RENDITION_CACHE = 'hbcode-media-renditions';
/** What the kept chunks may take together; past it the oldest kept go first. */
export const MAX_KEPT_RENDITION_BYTES = 256 * 1024 * 1024;

/** A rendition this device has no copy of (offline, never viewed here). */
export class RenditionNotKeptError extends Error {
  readonly code = 'not_kept';
  constructor() {
    super('This file was not viewed on this device while connected.');
    this.name = 'RenditionNotKeptError';
  }
}

const HEADER = 'x-hbcode-chunk';
const BYTES = 'x-hbcode-bytes';

/** Same-origin addresses that are never requested: the key of one chunk, and of "the last ask of this file" per family. */
const askPart = (ask: RenditionAsk) =>
  `dir=${encodeURIComponent(ask.projectDirectory)}&path=${encodeURIComponent(ask.path)}`;
const chunkKey = (ask: RenditionAsk, offset: number) =>
  `/kept-rendition?${askPart(ask)}&w=${ask.maxWidth}&h=${ask.maxHeight}&kind=${ask.kind}&offset=${offset}`;
const latestKey = (ref: { projectDirectory: string; path: string }, role: string) =>
  `/kept-rendition-latest?${askPart({ ...ref, maxWidth: 0, maxHeight: 0, kind: 'webp' })}&role=${role}`;

const open = () => (typeof caches === 'undefined' ? Promise.resolve(null) : caches.open(KEPT_RENDITION_CACHE));

async function keptChunk(ask: RenditionAsk, offset: number): Promise<VerifiedChunk | null> {
  const cache = await open();
  const found = await cache?.match(chunkKey(ask, offset));
  if (!found) return null;
  const header = JSON.parse(found.headers.get(HEADER) ?? 'null') as ChunkHeader | null;
  return header ? { header, data: new Uint8Array(await found.arrayBuffer()) } : null;
}

/**
 * The kept bytes from `offset` on: the chunk kept at that offset, else the part of a kept chunk
 * that holds it (a player's ranges start anywhere, and each range read kept its chunks from there).
 */
async function keptFrom(ask: RenditionAsk, offset: number): Promise<VerifiedChunk | null> {
  const exact = await keptChunk(ask, offset);
  if (exact) return exact;
  const cache = await open();
  if (!cache) return null;
  const prefix = new URL(chunkKey(ask, 0), location.href).href.replace(/offset=0$/, 'offset=');
  for (const request of await cache.keys()) {
    if (!request.url.startsWith(prefix)) continue;
    const found = await cache.match(request);
    const start = Number(request.url.slice(prefix.length));
    const bytes = Number(found?.headers.get(BYTES) ?? 0);
    if (!found || !(start < offset && offset < start + bytes)) continue;
    const header = JSON.parse(found.headers.get(HEADER) ?? 'null') as ChunkHeader | null;
    if (!header) continue;
    const data = new Uint8Array(await found.arrayBuffer()).subarray(offset - start);
    return { header: { ...header, offset, byteCount: data.byteLength, sha256: await sha256Hex(data) }, data };
  }
  return null;
}

/** Drops every kept chunk of this ask (its original changed: a new version is being read). */
async function forgetAsk(cache: Cache, ask: RenditionAsk): Promise<void> {
  const prefix = new URL(chunkKey(ask, 0), location.href).href.replace(/offset=0$/, 'offset=');
  for (const request of await cache.keys()) if (request.url.startsWith(prefix)) await cache.delete(request);
}

/** Oldest first until the kept chunks fit in `maxBytes` (Cache Storage lists keys in the order they were put). */
async function evict(cache: Cache, maxBytes: number): Promise<void> {
  const responses = await cache.matchAll();
  const requests = await cache.keys();
  let total = responses.reduce((sum, response) => sum + Number(response.headers.get(BYTES) ?? 0), 0);
  for (let i = 0; i < requests.length && total > maxBytes; i++) {
    total -= Number(responses[i]?.headers.get(BYTES) ?? 0);
    await cache.delete(requests[i]!);
  }
}

async function keepChunk(ask: RenditionAsk, chunk: VerifiedChunk, role: string, maxBytes: number): Promise<void> {
  const cache = await open();
  if (!cache) return;
  if (chunk.header.offset === 0) {
    const previous = await keptChunk(ask, 0);
    if (previous && previous.header.contentVersion !== chunk.header.contentVersion) await forgetAsk(cache, ask);
    await cache.put(
      latestKey(ask, role),
      new Response(JSON.stringify(ask), { headers: { 'content-type': 'application/json' } }),
    );
  }
  const headers = {
    'content-type': chunk.header.mimeType,
    [HEADER]: JSON.stringify(chunk.header),
    [BYTES]: String(chunk.data.byteLength),
  };
  await cache.put(chunkKey(ask, chunk.header.offset), new Response(chunk.data as Uint8Array<ArrayBuffer>, { headers }));
  await evict(cache, maxBytes);
}

/** The ask this device last viewed of a file in `role` (`view` or `still`), for reading it offline. */
export async function lastKeptAsk(
  ref: { projectDirectory: string; path: string },
  role: string,
): Promise<RenditionAsk | null> {
  const found = await (await open())?.match(latestKey(ref, role));
  return found ? ((await found.json()) as RenditionAsk) : null;
}

/**
 * A rendition reader that keeps what it reads (FILE-15): each chunk goes into Cache Storage as it
 * arrives. Online, the first chunk always comes from the desktop, so its version is the original's
 * now; a later chunk kept under that same version is read from this device instead. Offline
 * (`live` null), every chunk comes from this device or the read fails with `RenditionNotKeptError`.
 */
export function keepingRenditionReader(
  live: ReadChunk | null,
  ask: RenditionAsk,
  role: string,
  maxBytes = MAX_KEPT_RENDITION_BYTES,
): ReadChunk {
  let pinned: string | null = null;
  return async (offset) => {
    if (offset > 0 || !live) {
      const kept = await keptFrom(ask, offset).catch(() => null);
      if (kept && (!live || kept.header.contentVersion === pinned)) return kept;
      if (!live) throw new RenditionNotKeptError();
    }
    const chunk = await live(offset);
    pinned ??= chunk.header.contentVersion;
    // A chunk of a rendition still being made is not kept: its length and next offset change (FILE-16).
    if (!isGrowing(chunk))
      await keepChunk(ask, chunk, role, maxBytes).catch((error: unknown) =>
        console.warn('Could not keep a copy of the rendition', error),
      );
    return chunk;
  };
}

/** Forgets every kept rendition (Settings › clear offline copies, sign-out). */
export async function clearKeptRenditions(): Promise<void> {
  if (typeof caches !== 'undefined') await caches.delete(KEPT_RENDITION_CACHE);
}
