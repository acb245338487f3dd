import { httpFileChunkReader } from './httpBytes';
import type { RpcClient } from './rpcClient';
import { readVerifiedChunks, type ReadChunk, type VerifiedChunk } from './verifiedChunks';

/** A file as the protocol names it: a registered project and a path inside it (FILE-3). */
export interface ProjectFileRef {
  projectDirectory: string;
  path: string;
}

/**
 * The app reads 256 KiB chunks, eight in flight: Chromium takes WebSocket messages of that size
 * several times faster than 4 MiB ones (measured on loopback), and each is verified on its own.
 */
export const FILE_CHUNK_READ_BYTES = 256 * 1024;
export const FILE_CHUNKS_IN_FLIGHT = 8;

/** Over HTTP the runtime's 4 MiB chunks, a few at a time: the socket's message size limit does not apply there. */
export const HTTP_FILE_CHUNK_READ_BYTES = 4 * 1024 * 1024;
export const HTTP_FILE_CHUNKS_IN_FLIGHT = 4;

/** One `files.readBinary` chunk as a binary frame (FILE-2). */
function fileChunkReader(client: Pick<RpcClient, 'callBinary'>, ref: ProjectFileRef): ReadChunk {
  return async (offset) => {
    const { result, data } = await client.callBinary('files.readBinary', {
      projectDirectory: ref.projectDirectory,
      path: ref.path,
      offset,
      length: FILE_CHUNK_READ_BYTES,
    });
    const { dataBase64: _unused, ...header } = result;
    return { header, data };
  };
}

/** A whole file from the runtime as verified chunks, in order (FILE-2); any change midway rejects it. */
export function readProjectFileChunks(
  client: Pick<RpcClient, 'callBinary'> & Partial<Pick<RpcClient, 'httpBytes'>>,
  ref: ProjectFileRef,
  options: { signal?: AbortSignal } = {},
): AsyncGenerator<VerifiedChunk> {
  // The same checks either way: each chunk's SHA-256, offsets and the pinned version (FILE-2).
  if (client.httpBytes)
    return readVerifiedChunks(httpFileChunkReader(client.httpBytes, ref, HTTP_FILE_CHUNK_READ_BYTES), {
      inFlight: HTTP_FILE_CHUNKS_IN_FLIGHT,
      signal: options.signal,
    });
  return readVerifiedChunks(fileChunkReader(client, ref), { inFlight: FILE_CHUNKS_IN_FLIGHT, signal: options.signal });
}
