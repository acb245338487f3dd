/** Buffers kept for reuse: a fresh large buffer costs a page fault per 4 KiB on first touch. */
const POOL_SIZE = 16;

/** Reusable buffers of one size, for HTTP answers read straight from a file. */
export class BufferPool {
  private readonly free: Buffer[] = [];

  constructor(private readonly size: number) {}

  acquire(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafe(this.size);
  }

  /** Only once the answer holding it was written (or dropped). */
  release(buffer: Buffer): void {
    if (this.free.length < POOL_SIZE) this.free.push(buffer);
  }
}
