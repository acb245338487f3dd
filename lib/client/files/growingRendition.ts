import type { MediaRequest } from '../../protocol/mediaBridge';
import { ResponseControlSchema } from '../../protocol/previewBridge';
import { parseRangeHeader } from '../preview/byteRange';
import { PortInbox } from '../preview/portInbox';
import { answerPreviewRequest, head, send, streamBody, type ResourceSource } from '../preview/resourceResponder';
import {
  ChunkIntegrityError,
  FileChangedError,
  sha256Hex,
  verifyChunk,
  type ReadChunk,
  type VerifiedChunk,
} from '../verifiedChunks';
import type { RenditionChunkHeader } from './renditionChunks';

/** Media is never HTML, so no decoration is ever applied; the responder asks for one only for HTML. */
const NO_DECORATION = { theme: {}, navigationScript: '' };

/** Whether a rendition chunk comes from one still being made (FILE-16). */
export const isGrowing = (chunk: VerifiedChunk) => (chunk.header as RenditionChunkHeader).complete === false;

/** Checks one chunk of a rendition that may still grow: in place, whole, and of the pinned version. */
async function verifyGrowing(chunk: VerifiedChunk, expectedOffset: number, contentVersion: string): Promise<void> {
  const { header, data } = chunk;
  if (header.contentVersion !== contentVersion) throw new FileChangedError();
  const sha256 = await sha256Hex(data);
  if (!isGrowing(chunk)) return verifyChunk(chunk, sha256, expectedOffset, null);
  if (header.offset !== expectedOffset)
    throw new ChunkIntegrityError(`offset ${header.offset}, expected ${expectedOffset}`);
  if (data.byteLength !== header.byteCount || header.nextOffset !== header.offset + header.byteCount)
    throw new ChunkIntegrityError('inconsistent length');
  if (sha256 !== header.sha256) throw new ChunkIntegrityError('SHA-256 mismatch');
}

/**
 * The bytes of a rendition from offset 0 as they are made (FILE-16): one verified chunk after
 * another, each read waiting on the desktop until more is written, until a complete chunk ends it.
 */
export async function* growingPieces(read: ReadChunk, first?: VerifiedChunk): AsyncGenerator<Uint8Array> {
  let chunk = first ?? (await read(0));
  const contentVersion = chunk.header.contentVersion;
  let expected = 0;
  for (;;) {
    await verifyGrowing(chunk, expected, contentVersion);
    if (chunk.data.byteLength > 0) yield chunk.data;
    if (chunk.header.nextOffset === null) return;
    expected = chunk.header.nextOffset;
    chunk = await read(expected);
  }
}

/**
 * Answers the service worker's request for a rendition (FILE-13, FILE-16): while the rendition
 * is still being made, a request from its start is answered 200 with a body that streams the
 * bytes as they are made (no length, no ranges); once it is complete, ranges as usual.
 */
export async function answerMediaRequest(request: MediaRequest, port: MessagePort, read: ReadChunk): Promise<void> {
  const range = parseRangeHeader(request.range);
  const fromStart = !range || (range.kind === 'from' && range.start === 0);
  let first: VerifiedChunk | null = null;
  if (fromStart) first = await read(0).catch(() => null);
  if (!first || !isGrowing(first)) {
    let unused = first;
    const reuse: ReadChunk = (offset) => {
      const kept = offset === 0 ? unused : null;
      unused = null;
      return kept ? Promise.resolve(kept) : read(offset);
    };
    const source: ResourceSource = { read: () => reuse, decoration: () => NO_DECORATION };
    return answerPreviewRequest(request, port, request.path, source);
  }
  const inbox = new PortInbox(port, ResponseControlSchema);
  try {
    head(port, 200, { 'content-type': first.header.mimeType });
    if (request.method === 'HEAD') return send(port, { type: 'end' });
    await streamBody(inbox, growingPieces(read, first));
  } catch {
    // NOTE: a fixed code, never the error's text: the worker's side is reachable by the page.
    send(port, { type: 'fail', code: 'read_failed' });
  } finally {
    inbox.close();
  }
}
