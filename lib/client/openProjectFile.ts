import {
  cachedChunkReader,
  findCachedFile,
  forgetOtherVersions,
  MAX_CACHED_FILE_BYTES,
  saveFileChunk,
} from './fileCache';
import { FILE_CHUNKS_IN_FLIGHT, readProjectFileChunks, type ProjectFileRef } from './fileChunks';
import { RpcError, type RpcClient } from './rpcClient';
import { readVerifiedChunks, type ChunkHeader, type VerifiedChunk } from './verifiedChunks';

export interface OpenedFile {
  /** The first chunk's header: size, version, type, time. */
  header: ChunkHeader;
  blob: Blob;
  /** Read from what this device saved, not from the runtime. */
  fromCache: boolean;
}

export interface OpenOptions {
  signal?: AbortSignal;
  onProgress?: (loadedBytes: number, totalBytes: number) => void;
  /** The file's first chunk, as soon as it is verified, when more chunks follow (PERF-6: a view can start with it). */
  onHead?: (chunk: VerifiedChunk) => void;
}

async function collect(
  chunks: AsyncGenerator<VerifiedChunk>,
  options: OpenOptions,
  onChunk?: (chunk: VerifiedChunk) => void,
): Promise<{ header: ChunkHeader; blob: Blob } | null> {
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let header: ChunkHeader | null = null;
  let loaded = 0;
  for await (const chunk of chunks) {
    if (!header && chunk.header.nextOffset !== null) options.onHead?.(chunk);
    header ??= chunk.header;
    parts.push(chunk.data as Uint8Array<ArrayBuffer>);
    loaded += chunk.data.byteLength;
    onChunk?.(chunk);
    options.onProgress?.(loaded, header.size);
  }
  return header ? { header, blob: new Blob(parts, { type: header.mimeType }) } : null;
}

/**
 * A whole file as a Blob from verified chunks (FILE-2, FILE-4): from the runtime while connected,
 * saving chunks for offline reading (PWA-3); from this device's cache when there is no
 * connection. Null when it was never saved here and the runtime cannot be asked.
 */
export async function openProjectFile(
  client: RpcClient | null,
  ref: ProjectFileRef,
  options: OpenOptions = {},
): Promise<OpenedFile | null> {
  if (client) {
    try {
      let saving = Promise.resolve();
      const opened = await collect(readProjectFileChunks(client, ref, options), options, (chunk) => {
        if (chunk.header.size > MAX_CACHED_FILE_BYTES) return;
        // NOTE: best effort and in order; a full disk must not stop the viewer.
        saving = saving
          .then(() => saveFileChunk(ref, chunk))
          .catch((error: unknown) => console.warn('Could not save a file chunk on this device', error));
      });
      if (!opened) throw new Error('The file answered no chunk.');
      void saving.then(() => forgetOtherVersions(ref, opened.header.contentVersion)).catch(() => undefined);
      return { ...opened, fromCache: false };
    } catch (error) {
      if (!(error instanceof RpcError && error.code === 'closed')) throw error;
    }
  }
  const saved = await findCachedFile(ref);
  if (!saved) return null;
  const read = readVerifiedChunks(cachedChunkReader(ref, saved.contentVersion), {
    inFlight: FILE_CHUNKS_IN_FLIGHT,
    signal: options.signal,
  });
  const opened = await collect(read, options);
  return opened ? { ...opened, fromCache: true } : null;
}
