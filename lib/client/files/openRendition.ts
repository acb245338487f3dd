import type { MediaFamily } from '../../protocol/mimeTypes';
import type { ProjectFileRef } from '../fileChunks';
import type { RpcClient } from '../rpcClient';
import { readVerifiedChunks, type ReadChunk } from '../verifiedChunks';
import { keepingRenditionReader, lastKeptAsk, RenditionNotKeptError } from './keptRenditions';
import { growingPieces, isGrowing } from './growingRendition';
import { serveRenditionStream } from './mediaStreams';
import { renditionAskFor, renditionChunkReader, type RenditionAsk, type RenditionChunkHeader } from './renditionChunks';

/** A rendition ready for an element: its URL (a blob, or the service worker's range route) and both sizes. */
export interface OpenedRendition {
  url: string;
  mimeType: string;
  renditionBytes: number;
  originalBytes: number;
  /** Played through the service worker's range reads (FILE-13), not read whole first. */
  streamed: boolean;
  /** Still being made when opened: the player starts on the bytes made so far (FILE-16). */
  growing: boolean;
  /** Read from this device's kept copy, offline (FILE-15). */
  fromDevice: boolean;
  dispose(): void;
}

export interface Screen {
  width: number;
  height: number;
  pixelRatio: number;
}

/** A video or audio rendition this small is kept whole once viewed, not only the ranges the player read (FILE-15). */
export const KEEP_WHOLE_MAX_BYTES = 16 * 1024 * 1024;

async function readWhole(read: ReadChunk, mimeType: string, signal: AbortSignal, growing = false): Promise<string> {
  const parts: Uint8Array<ArrayBuffer>[] = [];
  if (growing) {
    for await (const piece of growingPieces(read)) {
      signal.throwIfAborted();
      parts.push(piece as Uint8Array<ArrayBuffer>);
    }
  } else
    for await (const chunk of readVerifiedChunks(read, { inFlight: 4, signal }))
      parts.push(chunk.data as Uint8Array<ArrayBuffer>);
  return URL.createObjectURL(new Blob(parts, { type: mimeType }));
}

/**
 * The rendition of one file for this screen (FILE-10), every chunk kept on this device as it is
 * read (FILE-15): images read whole into a blob; video and audio played through the service
 * worker's range reads when it controls the page (FILE-13). Offline (`client` null) it is read from
 * the kept copy of the last one viewed; null when there is none.
 */
export async function openRendition(
  client: RpcClient | null,
  ref: ProjectFileRef,
  family: MediaFamily,
  screen: Screen,
  canPlay: (type: string) => boolean,
  signal: AbortSignal,
): Promise<OpenedRendition | null> {
  const ask: RenditionAsk | null = client
    ? renditionAskFor(ref, family, screen, canPlay)
    : await lastKeptAsk(ref, 'view');
  if (!ask) return null;
  const read = keepingRenditionReader(client ? renditionChunkReader(client, ask) : null, ask, 'view');
  let first;
  try {
    // Online, the first chunk makes the rendition (or finds it kept), so a player's requests are quick.
    first = await read(0);
  } catch (error) {
    if (error instanceof RenditionNotKeptError) return null;
    throw error;
  }
  const header: RenditionChunkHeader = first.header;
  const stream = family === 'image' ? null : serveRenditionStream(read);
  const growing = isGrowing(first);
  const base = {
    growing,
    mimeType: header.mimeType,
    renditionBytes: header.size,
    originalBytes: header.originalByteCount ?? 0,
    fromDevice: client === null,
  };
  if (stream) {
    // A small one is kept whole meanwhile, so it plays offline from start to end.
    if (client && !growing && header.size <= KEEP_WHOLE_MAX_BYTES) void drain(read, signal);
    return { ...base, url: stream.url, streamed: true, dispose: stream.dispose };
  }
  const url = await readWhole(read, header.mimeType, signal, growing);
  return { ...base, url, streamed: false, dispose: () => URL.revokeObjectURL(url) };
}

async function drain(read: ReadChunk, signal: AbortSignal): Promise<void> {
  try {
    for await (const _chunk of readVerifiedChunks(read, { inFlight: 2, signal }));
  } catch {
    // Keeping is a convenience: the player reads what it needs anyway.
  }
}

/**
 * A video's first frame as a still (FILE-14), shown while its transcode runs; kept like any
 * rendition (FILE-15). Null offline without a kept one.
 */
export async function openVideoStill(
  client: RpcClient | null,
  ref: ProjectFileRef,
  screen: Screen,
  signal: AbortSignal,
): Promise<{ url: string; dispose(): void } | null> {
  const ask: RenditionAsk | null = client
    ? { ...renditionAskFor(ref, 'image', screen, () => false), kind: 'webp' }
    : await lastKeptAsk(ref, 'still');
  if (!ask) return null;
  const read = keepingRenditionReader(client ? renditionChunkReader(client, ask) : null, ask, 'still');
  try {
    const url = await readWhole(read, 'image/webp', signal);
    return { url, dispose: () => URL.revokeObjectURL(url) };
  } catch (error) {
    if (error instanceof RenditionNotKeptError) return null;
    throw error;
  }
}
