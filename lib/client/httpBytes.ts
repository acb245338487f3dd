import { UploadStatusSchema, type UploadStatus } from '../protocol/attachments';
import { ERROR_CODES, type ErrorCode } from '../protocol/errors';
import {
  CHUNK_HEADER,
  HTTP_ATTACHMENT_CHUNK_PATH,
  HTTP_FILE_CHUNK_PATH,
  HttpChunkHeaderSchema,
  PINNED_VERSION_HEADER,
} from '../protocol/httpBytes';
import { ErrorObjectSchema } from '../protocol/jsonrpc';
import { responseBytes } from './responseBytes';
import { RpcError } from './rpcClient';
import { ChunkIntegrityError, FileChangedError, type ReadChunk } from './verifiedChunks';

/** Where and as whom chunk bytes go over HTTP (lib/protocol/httpBytes.ts): the app origin and the device's token. */
export interface HttpBytesRoute {
  origin: string;
  token: string;
}

/** The HTTP origin of a runtime's WebSocket address (ws: → http:, wss: → https:). */
export function httpOriginOfSocket(socketUrl: string): string {
  const url = new URL(socketUrl);
  return `${url.protocol === 'wss:' ? 'https:' : 'http:'}//${url.host}`;
}

function parseJson(text: string | null): unknown {
  try {
    return text === null ? null : (JSON.parse(text) as unknown);
  } catch {
    return null;
  }
}

/** One request: the token in its header only, no cookies, nothing cached (SEC-1, SEC-8). */
async function request(
  route: HttpBytesRoute,
  path: string,
  query: Record<string, string>,
  init: { method: string; headers?: Record<string, string>; body?: Blob },
): Promise<Response> {
  const url = `${route.origin}${path}?${new URLSearchParams(query).toString()}`;
  let answer: Response;
  try {
    answer = await fetch(url, {
      method: init.method,
      body: init.body,
      headers: { ...init.headers, authorization: `Bearer ${route.token}` },
      credentials: 'omit',
      cache: 'no-store',
      redirect: 'error',
    });
  } catch (error) {
    throw new RpcError(
      'closed',
      `The runtime could not be reached (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  if (answer.ok) return answer;
  throw await refusalOf(answer);
}

/** A refusal as the same typed error the socket would give (RPC-3). */
async function refusalOf(answer: Response): Promise<Error> {
  const parsed = ErrorObjectSchema.safeParse(
    ((await answer.json().catch(() => null)) as { error?: unknown } | null)?.error,
  );
  if (!parsed.success)
    return new RpcError('invalid_response', `The runtime answered HTTP ${answer.status} without an error.`);
  const { code, message } = parsed.data;
  const data: Record<string, unknown> = parsed.data.data ?? {};
  if (data.reason === 'file_changed') return new FileChangedError();
  const known =
    typeof data.code === 'string' && (ERROR_CODES as readonly string[]).includes(data.code)
      ? (data.code as ErrorCode)
      : 'invalid_response';
  return new RpcError(known, message, data, code);
}

/** A file's chunks over HTTP (FILE-2): after the first, each request carries the pinned version. */
export function httpFileChunkReader(
  route: HttpBytesRoute,
  ref: { projectDirectory: string; path: string },
  chunkBytes: number,
): ReadChunk {
  let pinned: string | null = null;
  return async (offset) => {
    const query = {
      projectDirectory: ref.projectDirectory,
      path: ref.path,
      offset: String(offset),
      length: String(chunkBytes),
    };
    const answer = await request(route, HTTP_FILE_CHUNK_PATH, query, {
      method: 'GET',
      headers: pinned ? { [PINNED_VERSION_HEADER]: pinned } : {},
    });
    const header = HttpChunkHeaderSchema.safeParse(parseJson(answer.headers.get(CHUNK_HEADER)));
    if (!header.success)
      throw new RpcError(
        'invalid_response',
        `The runtime answered a file chunk with an unexpected header: ${header.error.message}`,
      );
    // Never more than was asked for: the buffer for the body is allocated from this count.
    if (header.data.byteCount > chunkBytes)
      throw new ChunkIntegrityError(`${header.data.byteCount} bytes announced, ${chunkBytes} asked for`);
    pinned ??= header.data.contentVersion;
    return { header: header.data, data: await responseBytes(answer, header.data.byteCount) };
  };
}

/** One attachment chunk as an HTTP PUT (ATT-1); answers like `attachments.chunk`. */
export async function putAttachmentChunk(
  route: HttpBytesRoute,
  params: { sessionId: string; uploadId: string; offset: number; sha256: string },
  body: Blob,
): Promise<UploadStatus> {
  const query = {
    sessionId: params.sessionId,
    uploadId: params.uploadId,
    offset: String(params.offset),
    sha256: params.sha256,
  };
  const answer = await request(route, HTTP_ATTACHMENT_CHUNK_PATH, query, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body,
  });
  const status = UploadStatusSchema.safeParse(await answer.json());
  if (!status.success)
    throw new RpcError(
      'invalid_response',
      `The runtime answered a chunk with an unexpected shape: ${status.error.message}`,
    );
  return status.data;
}
