import type { MessageAttachment } from '../../protocol/attachments';
import { FILE_CHUNK_READ_BYTES, FILE_CHUNKS_IN_FLIGHT } from '../fileChunks';
import type { RpcClient } from '../rpcClient';
import { ChunkIntegrityError, readVerifiedChunks, type ReadChunk } from '../verifiedChunks';

/**
 * A stored attachment as a Blob, read as verified chunks (FILE-2) through `attachments.read`:
 * every chunk's SHA-256, offset and length checked, and the whole pinned to the upload's digest.
 */
export async function readAttachmentBlob(
  client: Pick<RpcClient, 'callBinary'>,
  sessionId: string,
  attachment: MessageAttachment,
  signal?: AbortSignal,
): Promise<Blob> {
  const read: ReadChunk = async (offset) => {
    const { result, data } = await client.callBinary('attachments.read', {
      sessionId,
      uploadId: attachment.uploadId,
      offset,
      length: FILE_CHUNK_READ_BYTES,
    });
    const { dataBase64: _unused, ...header } = result;
    return { header, data };
  };
  const parts: Uint8Array<ArrayBuffer>[] = [];
  for await (const chunk of readVerifiedChunks(read, { inFlight: FILE_CHUNKS_IN_FLIGHT, signal })) {
    if (chunk.header.contentVersion !== attachment.sha256)
      throw new ChunkIntegrityError('not the attachment the message names');
    parts.push(chunk.data as Uint8Array<ArrayBuffer>);
  }
  return new Blob(parts, { type: attachment.mimeType });
}
