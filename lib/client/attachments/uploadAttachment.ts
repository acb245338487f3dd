import { ATTACHMENT_CHUNK_BYTES, type UploadStatus } from '../../protocol/attachments';
import { RpcError, type RpcClient } from '../rpcClient';
import { putAttachmentChunk } from '../httpBytes';
import { sha256Hex } from '../verifiedChunks';

/** One file to upload into a session (ATT-1). `sha256` is the whole file's, computed once when it was attached. */
export interface UploadSource {
  sessionId: string;
  blob: Blob;
  name: string;
  mimeType: string;
  sha256: string;
}

/** How one chunk reaches the runtime: one binary WebSocket frame, or one HTTP request. */
type ChunkSender = (
  params: { sessionId: string; uploadId: string; offset: number; sha256: string },
  chunk: PreparedChunk,
) => Promise<UploadStatus>;

/** A chunk ready to go: its bytes (hashed here), and the same bytes as a slice of the file. */
interface PreparedChunk {
  bytes: Uint8Array;
  /** An HTTP body from a Blob is handed to the browser by reference, not copied through the page. */
  slice: Blob;
  sha256: string;
}

export interface UploadOptions {
  /** Chunks on the wire at once (the next chunk is read and hashed while they travel). */
  inFlight?: number;
  onProgress?: (confirmedBytes: number, totalBytes: number) => void;
}

export const UPLOAD_CHUNKS_IN_FLIGHT = 8;
/** Chunks read and hashed before their turn: a burst of confirmations finds the next ones ready. */
const CHUNKS_PREPARED_AHEAD = 4;
/** How often one upload may be told to continue elsewhere before it gives up (each is a real answer). */
const MAX_RESTARTS = 8;

/** What an upload needs of the connection: the socket's calls, and HTTP when the client has it. */
export type UploadClient = Pick<RpcClient, 'call' | 'callWithBytes'> & Partial<Pick<RpcClient, 'httpBytes'>>;

/** The whole file's SHA-256, as `attachments.begin` wants it. */
export async function fileSha256(blob: Blob): Promise<string> {
  return sha256Hex(new Uint8Array(await blob.arrayBuffer()));
}

async function chunkAt(blob: Blob, offset: number): Promise<PreparedChunk> {
  const slice = blob.slice(offset, Math.min(blob.size, offset + ATTACHMENT_CHUNK_BYTES));
  const bytes = new Uint8Array(await slice.arrayBuffer());
  return { bytes, slice, sha256: await sha256Hex(bytes) };
}

const isOutOfOrder = (error: unknown): error is RpcError =>
  error instanceof RpcError && error.code === 'conflict' && error.data.reason === 'out_of_order';

/**
 * Uploads one file in 1 MiB chunks, each with its SHA-256, as binary frames (ATT-1). `begin`
 * answers where the runtime stands, so a file cut off by a disconnect continues from its last
 * confirmed byte when called again on the next connection. Resolves once the runtime confirmed
 * the whole file; a refusal rejects with the runtime's error (a lost connection: `closed`).
 */
export async function uploadAttachment(
  client: UploadClient,
  source: UploadSource,
  options: UploadOptions = {},
): Promise<UploadStatus> {
  const inFlight = Math.max(1, options.inFlight ?? UPLOAD_CHUNKS_IN_FLIGHT);
  const route = client.httpBytes;
  // Chromium sends large WebSocket messages far slower than HTTP bodies: chunks go over HTTP when it can (ATT-1).
  const sendChunk: ChunkSender = route
    ? (params, chunk) => putAttachmentChunk(route, params, chunk.slice)
    : (params, chunk) => client.callWithBytes('attachments.chunk', { ...params, dataBase64: '' }, chunk.bytes);
  let status = await client.call('attachments.begin', {
    sessionId: source.sessionId,
    name: source.name,
    mimeType: source.mimeType,
    byteLength: source.blob.size,
    sha256: source.sha256,
  });
  options.onProgress?.(status.confirmedOffset, status.byteLength);
  for (let restarts = 0; !status.complete; restarts++) {
    try {
      status = await sendChunksFrom(sendChunk, source, status, inFlight, options);
    } catch (error) {
      // Another tab or an earlier connection moved the upload on: continue where the runtime says.
      if (!isOutOfOrder(error) || restarts >= MAX_RESTARTS) throw error;
      status = await client.call('attachments.status', { sessionId: source.sessionId, uploadId: status.uploadId });
    }
  }
  return status;
}

async function sendChunksFrom(
  sendChunk: ChunkSender,
  source: UploadSource,
  from: UploadStatus,
  inFlight: number,
  options: UploadOptions,
): Promise<UploadStatus> {
  const answers: Promise<UploadStatus>[] = [];
  let next = from.confirmedOffset;
  let last = from;
  // Chunks read and hashed ahead, in offset order from `next`: they are ready while earlier ones travel.
  const ahead: Promise<PreparedChunk>[] = [];
  let nextToPrepare = next;
  const topUp = () => {
    while (ahead.length < CHUNKS_PREPARED_AHEAD && nextToPrepare < from.byteLength) {
      const chunk = chunkAt(source.blob, nextToPrepare);
      chunk.catch(() => undefined); // NOTE: awaited in order by sendNext; a later failure must not be reported first.
      ahead.push(chunk);
      nextToPrepare += ATTACHMENT_CHUNK_BYTES;
    }
  };
  const sendNext = async () => {
    const offset = next;
    next += ATTACHMENT_CHUNK_BYTES;
    topUp();
    const chunk = await ahead.shift()!;
    topUp();
    answers.push(
      sendChunk({ sessionId: source.sessionId, uploadId: from.uploadId, offset, sha256: chunk.sha256 }, chunk),
    );
  };
  try {
    while (next < from.byteLength && answers.length < inFlight) await sendNext();
    while (answers.length > 0) {
      last = await answers.shift()!;
      options.onProgress?.(last.confirmedOffset, last.byteLength);
      if (next < from.byteLength) await sendNext();
    }
  } finally {
    // Answers still on the way after a refusal are refusals too (out of order): nobody waits for them.
    for (const answer of answers) answer.catch(() => undefined);
  }
  return last;
}
