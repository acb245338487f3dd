import type http from 'node:http';
import { z } from 'zod';
import {
  ATTACHMENT_CHUNK_BYTES,
  MAX_ATTACHMENT_BYTES,
  Sha256HexSchema,
  UploadIdSchema,
} from '../../lib/protocol/attachments';
import { FILE_CHUNK_BYTES } from '../../lib/protocol/files';
import {
  CHUNK_HEADER,
  HTTP_ATTACHMENT_CHUNK_PATH,
  HTTP_FILE_CHUNK_PATH,
  PINNED_VERSION_HEADER,
} from '../../lib/protocol/httpBytes';
import { methods } from '../../lib/protocol/methods';
import type { ErrorCode } from '../../lib/protocol/errors';
import { frameForThrown } from '../rpc/rpcErrors';
import { conflict, invalidParams, RuntimeError } from '../runtime/errors';
import type { Logger } from '../runtime/log';
import type { Runtime } from '../runtime/runtime';
import { cookieClearingHeaders } from './cookies';
import { BufferPool } from '../../lib/shared/bufferPool';

type ByteRuntime = Pick<Runtime, 'auth' | 'files' | 'attachments' | 'requireUploadSession'>;

const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_params: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  storage: 507,
  unavailable: 503,
  secret_file: 403,
  not_a_repository: 404,
  git_failed: 409,
  unsupported_media: 415,
  corrupt_media: 422,
  timeout: 504,
  media_tool_missing: 501,
  // No byte route reads a Codex conversation file (SRC-2, SRC-3); here for completeness.
  source_unavailable: 410,
  reload_required: 409,
  missing_history_source: 410,
};

/** Refusals with a more exact HTTP status than their code's. */
const STATUS_BY_REASON: Record<string, number | undefined> = { origin: 403, method: 405, file_changed: 412 };

const FileChunkQuerySchema = methods['files.readBinary'].params;
const AttachmentChunkQuerySchema = z
  .object({
    sessionId: z.string().min(1).max(128),
    uploadId: UploadIdSchema,
    offset: z.coerce.number().int().min(0).max(MAX_ATTACHMENT_BYTES),
    sha256: Sha256HexSchema,
  })
  .strict();

/** Query strings carry numbers and flags as text; the readBinary schema wants them typed. */
function fileChunkParams(search: URLSearchParams) {
  const raw: Record<string, unknown> = Object.fromEntries(search);
  for (const key of ['offset', 'length'])
    if (typeof raw[key] === 'string') raw[key] = raw[key] === '' ? NaN : Number(raw[key]);
  if (raw.allowExternalFile !== undefined) raw.allowExternalFile = raw.allowExternalFile === 'true';
  return parsed(FileChunkQuerySchema, raw);
}

function parsed<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw invalidParams(
      `Invalid request: ${result.error.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`).join('; ')}`,
    );
  return result.data;
}

/** The token of `Authorization: Bearer`, the only place it is read from (SEC-1); cookies never count (SEC-8). */
function bearerToken(req: http.IncomingMessage): string | null {
  const match = /^Bearer ([\x21-\x7e]{1,512})$/.exec(req.headers.authorization ?? '');
  return match ? match[1]! : null;
}

/** Reads a request body of at most `limit` bytes, announced by Content-Length. */
function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  const length = Number(req.headers['content-length']);
  if (!Number.isSafeInteger(length) || length < 0)
    return Promise.reject(invalidParams('A chunk needs a Content-Length.'));
  if (length > limit)
    return Promise.reject(
      new RuntimeError('too_large', `A chunk is at most ${limit} bytes; this one has ${length}.`, {
        reason: 'chunk_size',
      }),
    );
  const body = Buffer.allocUnsafe(length);
  let at = 0;
  return new Promise((resolve, reject) => {
    req.on('data', (part: Buffer) => {
      if (at + part.length > length) {
        req.destroy();
        reject(invalidParams('The body is longer than its Content-Length.'));
        return;
      }
      part.copy(body, at);
      at += part.length;
    });
    req.on('end', () => (at === length ? resolve(body) : reject(invalidParams('The body ended early.'))));
    req.on('error', reject);
  });
}

/**
 * `GET /api/files/chunk` (one `files.readBinary` chunk, FILE-2) and `PUT /api/attachments/chunk`
 * (one `attachments.chunk`, ATT-1) on the app origin. Each request authenticates on its own with
 * a bearer token; a request another origin makes (a preview, ORG-4) is refused, no answer
 * carries CORS headers, and nothing is cached.
 */
export function createByteRoutes(runtime: ByteRuntime, appOrigin: () => string, log: Logger) {
  const buffers = new BufferPool(() => Buffer.allocUnsafe(FILE_CHUNK_BYTES));
  const headersOf = (req: http.IncomingMessage) => ({
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    // A page of another origin may not even embed the bytes (no-cors requests, ORG-4).
    'cross-origin-resource-policy': 'same-origin',
    ...cookieClearingHeaders(req),
  });
  const fail = (req: http.IncomingMessage, res: http.ServerResponse, thrown: unknown) => {
    const { frame, internal, faultId } = frameForThrown(null, thrown);
    if (internal)
      log.error(
        'byte request failed',
        {
          path: req.url?.split('?')[0] ?? '',
          faultId: faultId ?? null,
          reason: thrown instanceof Error ? thrown.message : String(thrown),
        },
        thrown,
      );
    const body = JSON.stringify({ error: frame.error });
    res.writeHead(
      internal ? 500 : (STATUS_BY_REASON[String(frame.error.data.reason)] ?? HTTP_STATUS[frame.error.data.code]),
      { ...headersOf(req), 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    );
    res.end(body);
  };

  /** SEC-1 and ORG-4: the app origin's own pages with a valid token, nothing else. */
  const admit = (req: http.IncomingMessage): void => {
    const origin = req.headers.origin;
    const site = req.headers['sec-fetch-site'];
    if ((origin !== undefined && origin !== appOrigin()) || (site !== undefined && site !== 'same-origin')) {
      throw new RuntimeError('unauthorized', 'Only the app itself may ask for these bytes.', { reason: 'origin' });
    }
    const token = bearerToken(req);
    if (!token || !runtime.auth.authenticate(token))
      throw new RuntimeError('unauthorized', 'A valid token in an Authorization: Bearer header is needed.');
  };

  const readFileChunk = (req: http.IncomingMessage, res: http.ServerResponse, search: URLSearchParams) => {
    const params = fileChunkParams(search);
    const lease = buffers.acquire();
    res.once('close', () => buffers.release(lease));
    const { bytes, ...header } = runtime.files.readBinary(
      params.projectDirectory,
      params.path,
      params.offset,
      (n) => lease.subarray(0, n),
      params.allowExternalFile,
      params.length,
    );
    const pinned = req.headers[PINNED_VERSION_HEADER];
    // FILE-2: a read that pinned a version gets no bytes of another one.
    if (typeof pinned === 'string' && pinned !== header.contentVersion)
      throw conflict('File changed while loading. Open it again.', {
        reason: 'file_changed',
        contentVersion: header.contentVersion,
      });
    res.writeHead(200, {
      ...headersOf(req),
      'content-type': 'application/octet-stream',
      'content-length': String(bytes.length),
      [CHUNK_HEADER]: JSON.stringify(header),
    });
    res.end(req.method === 'HEAD' ? undefined : bytes);
  };

  const writeAttachmentChunk = async (req: http.IncomingMessage, res: http.ServerResponse, search: URLSearchParams) => {
    const params = parsed(AttachmentChunkQuerySchema, Object.fromEntries(search));
    runtime.requireUploadSession(params.sessionId);
    const bytes = await readBody(req, ATTACHMENT_CHUNK_BYTES);
    const status = await runtime.attachments.chunkInAnyOrder(params, bytes);
    const body = JSON.stringify(status);
    res.writeHead(200, {
      ...headersOf(req),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  };

  return {
    /** True when the request was one of these routes (answered here, refusals included). */
    handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL): boolean {
      const route =
        url.pathname === HTTP_FILE_CHUNK_PATH
          ? 'file'
          : url.pathname === HTTP_ATTACHMENT_CHUNK_PATH
            ? 'attachment'
            : null;
      if (!route) return false;
      const method = route === 'file' ? ['GET', 'HEAD'] : ['PUT'];
      void (async () => {
        // A preflight (OPTIONS) from another origin gets no CORS headers, so the browser stops it there.
        if (!method.includes(req.method ?? ''))
          throw new RuntimeError('invalid_params', `Use ${method.join(' or ')} here.`, { reason: 'method' });
        admit(req);
        if (route === 'file') readFileChunk(req, res, url.searchParams);
        else await writeAttachmentChunk(req, res, url.searchParams);
      })().catch((thrown: unknown) => {
        const unreadBody = route === 'attachment' && !req.complete;
        // The body of a refused upload is not used: the connection carries no other request.
        if (unreadBody && !res.headersSent) res.setHeader('Connection', 'close');
        if (!res.headersSent) fail(req, res, thrown);
        else res.destroy();
        if (unreadBody) drainRefusedBody(req);
      });
      return true;
    },
  };
}

/** At most this much of a refused upload's body is read and dropped, for at most this long. */
const REFUSED_BODY_DRAIN_BYTES = 2 * 1024 * 1024;
const REFUSED_BODY_DRAIN_MS = 5_000;

/**
 * Reads and drops the rest of a refused upload's body (bounded in bytes and time) before the
 * connection closes: closing a socket with unread bytes sends a reset, which can take the refusal
 * itself away from a client still sending its chunk.
 */
function drainRefusedBody(req: http.IncomingMessage): void {
  let drained = 0;
  const timer = setTimeout(() => req.destroy(), REFUSED_BODY_DRAIN_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > REFUSED_BODY_DRAIN_BYTES) req.destroy();
  });
  req.once('close', () => clearTimeout(timer));
  req.resume();
}
