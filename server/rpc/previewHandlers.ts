import path from 'node:path';
import { FILE_CHUNK_BYTES } from '../../lib/protocol/files';
import type { MethodParamsParsed, MethodResult } from '../../lib/protocol/methods';
import { PREVIEW_HOST_PAGE_PATH } from '../../lib/protocol/previewBridge';
import { previewOriginOf, previewPathPrefix, type PreviewOrigins } from '../http/previewOrigins';
import type { Previews } from '../runtime/preview/previews';
import { BinaryFramePool, type BinaryReply } from './binaryReply';

type ResourceAnswer = MethodResult<'files.readHtmlPreviewResource'> | BinaryReply;

/** `preview.open`, `preview.close` and `files.readHtmlPreviewResource` (PRV-1, PRV-2, FILE-2). */
export function createPreviewHandlers(previews: Previews, origins: PreviewOrigins) {
  const frames = new BinaryFramePool(FILE_CHUNK_BYTES);
  return {
    'preview.open'(params: MethodParamsParsed<'preview.open'>): MethodResult<'preview.open'> {
      const binding = previews.open(params.previewId, params.projectDirectory, params.path);
      const origin = previewOriginOf(origins, params.previewId);
      const pathPrefix = previewPathPrefix(origins, params.previewId);
      const documentPath = pathPrefix + binding.resourceRoot.documentSegments.map(encodeURIComponent).join('/');
      const shared = origins.kind === 'shared';
      return {
        previewId: params.previewId,
        origin,
        url: origin + documentPath,
        hostUrl: origin + PREVIEW_HOST_PAGE_PATH + (shared ? `?id=${params.previewId}` : ''),
        documentPath,
        pathPrefix,
        root: binding.resourceRoot.documentOnly ? binding.documentPath : binding.resourceRoot.root + path.sep,
        sharedOrigin: shared,
      };
    },
    'preview.close'(params: MethodParamsParsed<'preview.close'>): MethodResult<'preview.close'> {
      previews.close(params.previewId);
      return {};
    },
    'files.readHtmlPreviewResource'(params: MethodParamsParsed<'files.readHtmlPreviewResource'>): ResourceAnswer {
      // Both transfers read into a pooled frame; base64 encodes from it and hands it back at once.
      const reply = frames.reserve(FILE_CHUNK_BYTES);
      let answer;
      try {
        answer = previews.readResource(params.previewId, params.path, params.offset, (n) => reply.data(n));
      } catch (error) {
        reply.release();
        throw error;
      }
      const binary = params.transfer === 'binary';
      if (answer.status === 404) {
        // A binary call is answered by a binary frame whatever the outcome, so the client knows its shape.
        if (binary) return reply.complete({ status: 404, dataBase64: '', byteCount: 0 });
        reply.release();
        return { status: 404 };
      }
      const result = { status: 200 as const, ...answer.chunk, dataBase64: binary ? '' : answer.bytes.toString('base64') };
      if (binary) return reply.complete(result);
      reply.release();
      return result;
    },
  };
}
