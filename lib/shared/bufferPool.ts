/** Buffers kept for reuse by default: a fresh large buffer costs a page fault per 4 KiB on first touch. */
const DEFAULT_KEPT = 16;

export interface BufferPoolOptions<B> {
  /** How many free buffers are kept; more are allocated while many users are busy. */
  keep?: number;
  /** Whether a released buffer may be handed out again (an oversized one is left to the collector). */
  reusable?: (buffer: B) => boolean;
}

/**
 * Reusable buffers made by `allocate` (a Node `Buffer` or a `Uint8Array`): the one buffer pool of
 * every realm. A buffer goes back only once nothing reads it any more.
 */
export class BufferPool<B> {
  private readonly free: B[] = [];
  private readonly keep: number;
  private readonly reusable: (buffer: B) => boolean;

  constructor(
    private readonly allocate: () => B,
    options: BufferPoolOptions<B> = {},
  ) {
    this.keep = options.keep ?? DEFAULT_KEPT;
    this.reusable = options.reusable ?? (() => true);
  }

  acquire(): B {
    return this.free.pop() ?? this.allocate();
  }

  release(buffer: B): void {
    if (this.free.length < this.keep && this.reusable(buffer)) this.free.push(buffer);
  }
}
