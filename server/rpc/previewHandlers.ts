import path from 'node:path';
import { FILE_CHUNK_BYTES, type FileChunk } from '../../lib/protocol/files';
import type { MethodParamsParsed, MethodResult } from '../../lib/protocol/methods';
import { PREVIEW_HOST_PAGE_PATH } from '../../lib/protocol/previewBridge';
import { previewOriginOf, previewPathPrefix, type PreviewOrigins } from '../http/previewOrigins';
import type { Previews } from '../runtime/preview/previews';
import { answerWithBytes, BinaryFramePool, type BinaryReply } from './binaryReply';

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
      return answerWithBytes<{ status: 200 } & Omit<FileChunk, 'dataBase64'>, { status: 404 }>(
        frames,
        params.transfer,
        (into) => {
          const answer = previews.readResource(params.previewId, params.path, params.offset, into);
          return answer.status === 404
            ? { bytes: null, result: { status: 404 } }
            : { bytes: answer.bytes, result: { status: 200, ...answer.chunk } };
        },
      );
    },
  };
}
