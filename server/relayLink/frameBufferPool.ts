/**
 * Buffers for sealed link frames, used again once `ws` has written them (RLY-3). A fresh buffer
 * of a page's size costs a page fault per 4 KiB the first time it is touched, which on a small
 * virtual machine is more than the AES-GCM that fills it; a warm one costs nothing of the kind.
 * Sizes go up in steps of STEP_BYTES, so one class serves every page of about one size.
 */
const STEP_BYTES = 64 * 1024;
/** Frames larger than this (rare: a file chunk of several MiB) are allocated each time. */
const LARGEST_POOLED_BYTES = 4 * 1024 * 1024;

export class FrameBufferPool {
  private readonly free = new Map<number, ArrayBuffer[]>();
  private pooledBytes = 0;

  constructor(private readonly maxPooledBytes = 16 * 1024 * 1024) {}

  /** A buffer of `size` bytes (its ArrayBuffer may be larger), contents undefined. */
  take(size: number): Uint8Array<ArrayBuffer> {
    const capacity = Math.ceil(Math.max(size, 1) / STEP_BYTES) * STEP_BYTES;
    const reused = capacity <= LARGEST_POOLED_BYTES ? this.free.get(capacity)?.pop() : undefined;
    if (reused) {
      this.pooledBytes -= capacity;
      return new Uint8Array(reused, 0, size);
    }
    return new Uint8Array(new ArrayBuffer(capacity <= LARGEST_POOLED_BYTES ? capacity : size), 0, size);
  }

  /** `view` (from `take`) is no longer read by anyone: its buffer may be handed out again. */
  give(view: Uint8Array): void {
    const buffer = view.buffer;
    const capacity = buffer.byteLength;
    if (!(buffer instanceof ArrayBuffer) || capacity % STEP_BYTES !== 0 || capacity > LARGEST_POOLED_BYTES) return;
    if (this.pooledBytes + capacity > this.maxPooledBytes) return;
    const list = this.free.get(capacity) ?? [];
    if (list.includes(buffer)) return;
    list.push(buffer);
    this.free.set(capacity, list);
    this.pooledBytes += capacity;
  }

  get bytesPooled(): number {
    return this.pooledBytes;
  }
}
