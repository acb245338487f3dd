import { FILE_CHUNK_BYTES } from '../../lib/protocol/files';
import type { MethodParamsParsed, MethodResult } from '../../lib/protocol/methods';
import { invalidParams } from '../runtime/errors';
import type { Runtime } from '../runtime/runtime';
import { answerWithBytes, BinaryFramePool, type BinaryReply } from './binaryReply';
import type { CallContext } from './methodHandlers';

/** The chunk's bytes: raw after the request in a binary frame, or base64 in the request (ATT-1). */
function chunkBytes(params: MethodParamsParsed<'attachments.chunk'>, ctx: CallContext): Buffer {
  if (ctx.requestBytes) {
    if (params.dataBase64 !== '')
      throw invalidParams('A chunk sent as a binary frame carries its bytes after the request: dataBase64 must be "".');
    return ctx.requestBytes;
  }
  return Buffer.from(params.dataBase64, 'base64');
}

/** `attachments.begin`, `.chunk`, `.status` and `.read` (ATT-1, FILE-2). */
export function createAttachmentHandlers(runtime: Runtime) {
  const frames = new BinaryFramePool(FILE_CHUNK_BYTES);
  const attachments = runtime.attachments;
  return {
    'attachments.begin'(
      params: MethodParamsParsed<'attachments.begin'>,
      ctx: CallContext,
    ): MethodResult<'attachments.begin'> {
      runtime.requireUploadSession(params.sessionId);
      return attachments.begin(params, ctx.identity?.deviceId ?? null);
    },
    async 'attachments.chunk'(
      params: MethodParamsParsed<'attachments.chunk'>,
      ctx: CallContext,
    ): Promise<MethodResult<'attachments.chunk'>> {
      runtime.requireUploadSession(params.sessionId);
      return attachments.chunk(params, chunkBytes(params, ctx));
    },
    'attachments.status'(params: MethodParamsParsed<'attachments.status'>): MethodResult<'attachments.status'> {
      runtime.requireUploadSession(params.sessionId);
      return attachments.status(params.sessionId, params.uploadId);
    },
    'attachments.read'(params: MethodParamsParsed<'attachments.read'>): MethodResult<'attachments.read'> | BinaryReply {
      runtime.requireUploadSession(params.sessionId);
      return answerWithBytes(frames, params.transfer, (into) => {
        const { bytes, header } = attachments.read(
          params.sessionId,
          params.uploadId,
          params.offset,
          params.length ?? FILE_CHUNK_BYTES,
          into,
        );
        return { bytes, result: header };
      });
    },
  };
}
