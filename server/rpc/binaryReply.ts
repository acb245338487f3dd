import { BINARY_HEADER_LENGTH_BYTES } from '../../lib/protocol/binaryFrame';
import type { RequestId } from '../../lib/protocol/jsonrpc';
import { BufferPool } from '../../lib/shared/bufferPool';

/** Room kept in front of the bytes for the header length and the JSON-RPC header. */
const HEADER_ROOM = 2048;

/**
 * Reusable frame buffers for binary answers (lib/protocol/binaryFrame.ts). The bytes are read
 * straight into a frame at a fixed offset and the header is written just in front of them, so
 * an answer costs no copy and, once the pool is warm, no new memory.
 */
export class BinaryFramePool {
  private readonly frames: BufferPool<Buffer>;

  constructor(maxDataBytes: number) {
    this.frames = new BufferPool<Buffer>(() => Buffer.allocUnsafe(HEADER_ROOM + maxDataBytes));
  }

  /** A reply whose bytes (at most the pool's size) the caller fills through `data(n)`. */
  reserve(): BinaryReply {
    return new BinaryReply(this.frames.acquire(), this);
  }

  release(frame: Buffer): void {
    this.frames.release(frame);
  }
}

/** A result whose bytes travel raw in a binary frame. */
export class BinaryReply {
  private result: { dataBase64: string } | null = null;
  private length = 0;
  private released = false;

  constructor(
    private readonly frame: Buffer,
    private readonly pool: BinaryFramePool,
  ) {}

  /** Where the answer's `n` bytes go. */
  data(n: number): Buffer {
    if (HEADER_ROOM + n > this.frame.length)
      throw new Error(`binary answers carry at most ${this.frame.length - HEADER_ROOM} bytes`);
    return this.frame.subarray(HEADER_ROOM, HEADER_ROOM + n);
  }

  complete<R extends { dataBase64: string; byteCount: number }>(result: R): this {
    this.result = result;
    this.length = result.byteCount;
    return this;
  }

  /** The frame to send; valid until `release`. */
  encode(id: RequestId): Buffer {
    if (!this.result) throw new Error('binary reply has no result');
    const header = JSON.stringify({ jsonrpc: '2.0', id, result: { ...this.result, dataBase64: '' } });
    const headerBytes = Buffer.byteLength(header);
    if (headerBytes > HEADER_ROOM - BINARY_HEADER_LENGTH_BYTES) throw new Error('binary reply header too large');
    const start = HEADER_ROOM - headerBytes - BINARY_HEADER_LENGTH_BYTES;
    this.frame.writeUInt32BE(headerBytes, start);
    this.frame.write(header, start + BINARY_HEADER_LENGTH_BYTES, 'utf8');
    return this.frame.subarray(start, HEADER_ROOM + this.length);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.pool.release(this.frame);
  }
}

/** What a read hands back: bytes (read through `into`) and the rest of the result, or a result without bytes. */
export type BytesRead<R, E> = { bytes: Buffer; result: R } | { bytes: null; result: E };

/**
 * The one way a method answers with bytes (files.readBinary, files.readHtmlPreviewResource,
 * run.chatCommandOutputRead): the read fills a pooled frame through `into`; `binary` answers with
 * that frame (lib/protocol/binaryFrame.ts), `base64` encodes from it and hands the frame back at
 * once, so the bytes are never copied twice. A result without bytes (a 404) is answered as is, or,
 * for a binary call, as a binary frame with no bytes, so the client knows its shape.
 */
export function answerWithBytes<R extends object, E extends object = never>(
  frames: BinaryFramePool,
  transfer: 'base64' | 'binary' | undefined,
  read: (into: (n: number) => Buffer) => BytesRead<R, NoInfer<E>>,
): (R & { dataBase64: string; byteCount: number }) | E | BinaryReply {
  const reply = frames.reserve();
  let outcome: BytesRead<R, E>;
  try {
    outcome = read((n) => reply.data(n));
  } catch (error) {
    reply.release();
    throw error;
  }
  if (outcome.bytes === null) {
    if (transfer === 'binary') return reply.complete({ ...outcome.result, dataBase64: '', byteCount: 0 });
    reply.release();
    return outcome.result;
  }
  const byteCount = outcome.bytes.length;
  if (transfer === 'binary') return reply.complete({ ...outcome.result, dataBase64: '', byteCount });
  const answer = { ...outcome.result, dataBase64: outcome.bytes.toString('base64'), byteCount };
  reply.release();
  return answer;
}
