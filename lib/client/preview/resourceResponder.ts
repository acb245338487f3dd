import type { MediaRequest } from '../../protocol/mediaBridge';
import { ResponseControlSchema, type PreviewRequest, type ResponsePart } from '../../protocol/previewBridge';
import { readVerifiedChunks, type ReadChunk, type VerifiedChunk } from '../verifiedChunks';
import { parseRangeHeader, resolveRange } from './byteRange';
import { decoratedPieces, planDecoration, type HtmlDecoration } from './htmlDecoration';
import { PortInbox } from './portInbox';

/** The runtime said 404 for this path (PRV-2, PRV-3). */
export class ResourceMissingError extends Error {
  readonly code = 'not_found';
  constructor() {
    super('Not found');
    this.name = 'ResourceMissingError';
  }
}

/** A read started past the end; `size` is the file's size (for a 416 answer). */
export class PastEndError extends Error {
  readonly code = 'past_end';
  constructor(readonly size: number) {
    super('Range not satisfiable');
    this.name = 'PastEndError';
  }
}

export interface ResourceSource {
  /** One verified-chunk read of a resource path (already stripped of a shared origin's prefix). */
  read(path: string): ReadChunk;
  decoration(): HtmlDecoration;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

export function send(port: MessagePort, part: ResponsePart): void {
  if (part.type === 'body') port.postMessage(part, [part.bytes]);
  else port.postMessage(part);
}

export function head(port: MessagePort, status: number, headers: Record<string, string>): void {
  send(port, { type: 'head', status, headers });
}

/** The bytes in a buffer of their own, to transfer: a view is copied so the buffer it shares is never detached. */
function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
    ? bytes.buffer
    : new Uint8Array(bytes).buffer;
}

/** Streams `pieces` as one body message per `pull` from the worker, then `end`; stops on `cancel`. */
export async function streamBody(
  inbox: PortInbox<{ type: 'pull' | 'cancel' }>,
  pieces: AsyncIterable<Uint8Array>,
): Promise<void> {
  const iterator = pieces[Symbol.asyncIterator]();
  try {
    for (;;) {
      const control = await inbox.next();
      if (!control || control.type === 'cancel') return;
      const piece = await iterator.next();
      if (piece.done) {
        send(inbox.port, { type: 'end' });
        return;
      }
      send(inbox.port, { type: 'body', bytes: toArrayBuffer(piece.value) });
    }
  } finally {
    await iterator.return?.();
  }
}

/** The bytes of the chunks from `first` on, cut to end at `last` (inclusive). */
async function* slicedChunks(
  first: VerifiedChunk,
  rest: AsyncGenerator<VerifiedChunk>,
  last: number,
): AsyncGenerator<Uint8Array> {
  for (let chunk: VerifiedChunk | undefined = first; chunk; chunk = (await rest.next()).value ?? undefined) {
    const { offset } = chunk.header;
    if (offset > last) return;
    yield chunk.data.subarray(0, Math.min(chunk.data.byteLength, last - offset + 1));
    if (offset + chunk.data.byteLength > last) return;
  }
}

async function firstChunk(
  read: ReadChunk,
  start: number,
): Promise<{ first: VerifiedChunk; rest: AsyncGenerator<VerifiedChunk> }> {
  const rest = readVerifiedChunks(read, { start, inFlight: 2 });
  const next = await rest.next();
  if (next.done) throw new ResourceMissingError();
  return { first: next.value, rest };
}

/**
 * Answers one request of a previewed page over its port (PRV-3, PRV-4, PRV-5): bytes come from
 * the runtime in verified chunks (FILE-2), one chunk per pull of the worker, never a whole file
 * (SEC-9). HTML is answered whole (any range), decorated on the way; a `Range` request of
 * anything else starts reading at its first byte instead of loading the file from the start (a
 * video that seeks). When `signal` aborts (the preview closed), the worker is told and the port
 * closed at once.
 */
export async function answerPreviewRequest(
  request: PreviewRequest | MediaRequest,
  port: MessagePort,
  path: string,
  source: ResourceSource,
  signal?: AbortSignal,
): Promise<void> {
  const inbox = new PortInbox(port, ResponseControlSchema);
  const read = source.read(path);
  const stop = () => {
    send(port, { type: 'fail', code: 'closed' });
    inbox.close();
  };
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const range = parseRangeHeader(request.range);
    const start = range?.kind === 'from' ? range.start : 0;
    let { first, rest } = await firstChunk(read, start);
    const { size, mimeType } = first.header;
    if (HTML_TYPES.has(mimeType)) {
      if (start !== 0) {
        await rest.return(undefined);
        ({ first, rest } = await firstChunk(read, 0));
      }
      const plan = planDecoration(first.data, size, source.decoration());
      head(port, 200, {
        'content-type': `${mimeType}${plan.utf8 ? '; charset=utf-8' : ''}`,
        'content-length': String(plan.size),
      });
      if (request.method === 'HEAD') {
        await rest.return(undefined);
        return send(port, { type: 'end' });
      }
      return await streamBody(inbox, decoratedPieces(plan, slicedChunks(first, rest, size - 1)));
    }
    const span = range ? resolveRange(range, size) : { start: 0, end: size - 1 };
    if (!span) {
      await rest.return(undefined);
      head(port, 416, { 'content-type': mimeType, 'content-range': `bytes */${size}` });
      return send(port, { type: 'end' });
    }
    if (span.start !== first.header.offset) {
      await rest.return(undefined);
      ({ first, rest } = await firstChunk(read, span.start));
    }
    const length = size === 0 ? 0 : span.end - span.start + 1;
    const headers: Record<string, string> = {
      'content-type': mimeType,
      'content-length': String(length),
      'accept-ranges': 'bytes',
    };
    if (range) headers['content-range'] = `bytes ${span.start}-${span.end}/${size}`;
    head(port, range ? 206 : 200, headers);
    if (request.method === 'HEAD' || length === 0) {
      await rest.return(undefined);
      return send(port, { type: 'end' });
    }
    await streamBody(inbox, slicedChunks(first, rest, span.end));
  } catch (error) {
    if (error instanceof ResourceMissingError) {
      head(port, 404, { 'content-type': 'text/plain; charset=utf-8' });
      send(port, { type: 'end' });
    } else if (error instanceof PastEndError) {
      head(port, 416, { 'content-type': 'text/plain; charset=utf-8', 'content-range': `bytes */${error.size}` });
      send(port, { type: 'end' });
    } else if (!signal?.aborted) {
      // NOTE: a fixed code, never the error's text: the worker's side is reachable by the page.
      send(port, { type: 'fail', code: 'read_failed' });
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    inbox.close();
  }
}
