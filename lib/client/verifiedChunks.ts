import { FILE_CHANGED_MESSAGE } from '../protocol/files';

/** What a chunk answer says about itself (FILE-2); `files.readBinary` and preview resources share it. */
export interface ChunkHeader {
  offset: number;
  nextOffset: number | null;
  byteCount: number;
  size: number;
  contentVersion: string;
  modifiedAt: number;
  mimeType: string;
  sha256: string;
}

export interface VerifiedChunk {
  header: ChunkHeader;
  data: Uint8Array;
}

export type ReadChunk = (offset: number) => Promise<VerifiedChunk>;

/** The file moved under the reader: version or size differ from the first answer (FILE-2). */
export class FileChangedError extends Error {
  readonly code = 'file_changed';
  constructor() {
    super(FILE_CHANGED_MESSAGE);
    this.name = 'FileChangedError';
  }
}

/** An answer that does not hold what it claims (hash, length or position). */
export class ChunkIntegrityError extends Error {
  readonly code = 'integrity';
  constructor(detail: string) {
    super(`A chunk of this file arrived damaged (${detail}). Open it again.`);
    this.name = 'ChunkIntegrityError';
  }
}

export async function sha256Hex(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** Checks one chunk, whose bytes hash to `sha256`, against its own header and against the version and size pinned by the first. */
export function verifyChunk(
  chunk: VerifiedChunk,
  sha256: string,
  expectedOffset: number,
  pinned: ChunkHeader | null,
): void {
  const { header, data } = chunk;
  if (pinned && (header.contentVersion !== pinned.contentVersion || header.size !== pinned.size))
    throw new FileChangedError();
  if (header.offset !== expectedOffset)
    throw new ChunkIntegrityError(`offset ${header.offset}, expected ${expectedOffset}`);
  if (data.byteLength !== header.byteCount)
    throw new ChunkIntegrityError(`${data.byteLength} bytes, announced ${header.byteCount}`);
  const end = header.offset + header.byteCount;
  const expectedNext = end >= header.size ? null : end;
  if (header.nextOffset !== expectedNext || end > header.size)
    throw new ChunkIntegrityError('inconsistent next offset');
  if (header.byteCount === 0 && expectedNext !== null) throw new ChunkIntegrityError('empty chunk before the end');
  if (sha256 !== header.sha256) throw new ChunkIntegrityError('SHA-256 mismatch');
}

/** A chunk as it arrived, its SHA-256 computed at once: chunks still in flight are hashed while earlier ones wait their turn (PERF-3). */
async function arrived(read: ReadChunk, offset: number): Promise<{ chunk: VerifiedChunk; sha256: string }> {
  const chunk = await read(offset);
  return { chunk, sha256: await sha256Hex(chunk.data) };
}

/**
 * Reads a whole file (or its tail from `start`) as verified chunks, in order, with up to `inFlight` requests outstanding
 * (the first answer fixes version, size and chunk length, so later offsets are known ahead).
 * Any mismatch rejects the whole read: a caller never sees a mix of two versions (FILE-2).
 */
export async function* readVerifiedChunks(
  read: ReadChunk,
  options: {
    inFlight?: number;
    signal?: AbortSignal;
    /** Where to start (a ranged read); 0 by default. */ start?: number;
  } = {},
): AsyncGenerator<VerifiedChunk> {
  const inFlight = Math.max(1, options.inFlight ?? 4);
  const start = options.start ?? 0;
  const { chunk: first, sha256 } = await arrived(read, start);
  verifyChunk(first, sha256, start, null);
  const pinned = first.header;
  yield first;
  if (pinned.nextOffset === null) return;
  const step = pinned.byteCount;
  const queue: { offset: number; answer: ReturnType<typeof arrived> }[] = [];
  let nextToRequest = pinned.nextOffset;
  const fill = () => {
    while (queue.length < inFlight && nextToRequest < pinned.size) {
      const offset = nextToRequest;
      const answer = arrived(read, offset);
      answer.catch(() => undefined); // NOTE: awaited in order below; a later failure must not be reported as unhandled first.
      queue.push({ offset, answer });
      nextToRequest += step;
    }
  };
  let expected: number | null = pinned.nextOffset;
  while (expected !== null) {
    options.signal?.throwIfAborted();
    fill();
    const head = queue.shift();
    if (!head) throw new ChunkIntegrityError('the file ended early');
    const { chunk, sha256 } = await head.answer;
    verifyChunk(chunk, sha256, expected, pinned);
    // A short chunk before the end means the server chunks differently: re-plan from here.
    if (chunk.header.nextOffset !== null && chunk.header.nextOffset !== head.offset + step) {
      queue.length = 0;
      nextToRequest = chunk.header.nextOffset;
    }
    expected = chunk.header.nextOffset;
    yield chunk;
  }
}
