import { BINARY_HEADER_LENGTH_BYTES } from '../../lib/protocol/binaryFrame';
import type { RequestId } from '../../lib/protocol/jsonrpc';

/** Room kept in front of the bytes for the header length and the JSON-RPC header. */
const HEADER_ROOM = 2048;
/** Frame buffers kept for reuse: fresh large buffers cost a page fault per 4 KiB on first touch. */
const POOL_SIZE = 16;

/**
 * Reusable frame buffers for binary answers (lib/protocol/binaryFrame.ts). The bytes are read
 * straight into a frame at a fixed offset and the header is written just in front of them, so
 * an answer costs no copy and, once the pool is warm, no new memory.
 */
export class BinaryFramePool {
  private readonly free: Buffer[] = [];

  constructor(private readonly maxDataBytes: number) {}

  /** A reply whose bytes the caller fills through `data(n)`. */
  reserve(dataBytes: number): BinaryReply {
    if (dataBytes > this.maxDataBytes) throw new Error(`binary answers carry at most ${this.maxDataBytes} bytes`);
    const frame = this.free.pop() ?? Buffer.allocUnsafe(HEADER_ROOM + this.maxDataBytes);
    return new BinaryReply(frame, this);
  }

  release(frame: Buffer): void {
    if (this.free.length < POOL_SIZE) this.free.push(frame);
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
