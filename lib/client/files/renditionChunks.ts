import type { RenditionKind } from '../../protocol/files';
import type { MediaFamily } from '../../protocol/mimeTypes';
import type { RpcClient } from '../rpcClient';
import type { ChunkHeader, ReadChunk } from '../verifiedChunks';
import type { ProjectFileRef } from '../fileChunks';

export interface RenditionAsk extends ProjectFileRef {
  maxWidth: number;
  maxHeight: number;
  kind: RenditionKind;
}

/** Box sides are rounded up to this, so windows of nearly the same size share one kept rendition. */
const BOX_STEP = 256;
const MAX_BOX = 8192;

/** The rendition this screen wants (FILE-10): its size in device pixels, and a kind this browser plays. */
export function renditionAskFor(
  ref: ProjectFileRef,
  family: MediaFamily,
  screen: { width: number; height: number; pixelRatio: number },
  canPlay: (type: string) => boolean,
): RenditionAsk {
  const side = (css: number) =>
    Math.min(MAX_BOX, Math.max(BOX_STEP, Math.ceil((css * screen.pixelRatio) / BOX_STEP) * BOX_STEP));
  const box = { maxWidth: side(screen.width), maxHeight: side(screen.height) };
  if (family === 'image') return { ...ref, ...box, kind: 'webp' };
  // NOTE: Chromium builds without the H.264 decoder (Debian's, Chromium on Linux) play only WebM.
  const mp4 = family === 'video' ? 'video/mp4; codecs="avc1.640028, mp4a.40.2"' : 'audio/mp4; codecs="mp4a.40.2"';
  return { ...ref, ...box, kind: canPlay(mp4) ? 'mp4' : 'webm' };
}

/** A rendition chunk's header: a file chunk's, and the original's size (kept with it, FILE-15). */
export type RenditionChunkHeader = ChunkHeader & {
  originalByteCount?: number;
  complete?: boolean;
  totalBytes?: number | null;
};

/**
 * One `files.readMediaRendition` chunk as a binary frame (FILE-10). Every call after the first
 * names the version the first answer carried, so an original that changed is refused (FILE-12).
 */
export function renditionChunkReader(
  client: Pick<RpcClient, 'callBinary'>,
  ask: RenditionAsk,
  onOriginalSize?: (bytes: number) => void,
): ReadChunk {
  let pinned: string | undefined;
  return async (offset) => {
    const { result, data } = await client.callBinary('files.readMediaRendition', {
      ...ask,
      offset,
      ...(pinned ? { contentVersion: pinned } : {}),
    });
    const { dataBase64: _unused, ...header }: { dataBase64: string } & RenditionChunkHeader = result;
    pinned ??= header.contentVersion;
    if (header.originalByteCount !== undefined) onOriginalSize?.(header.originalByteCount);
    return { header, data };
  };
}
