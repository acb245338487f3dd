import fs from 'node:fs';
import type { CachedRendition } from './renditionCache';

/** How often the written size of a growing rendition is looked at while a reader waits. */
const POLL_MS = 50;

/**
 * A rendition still being made (FILE-16): ffmpeg appends fragmented MP4 to its part file, and
 * readers read the bytes written so far through a descriptor of their own, which stays valid
 * when the finished file is moved into the cache. A read past the written part waits until
 * bytes arrive or the transcode ends; a failed transcode fails every waiting read with its error.
 */
export class GrowingRendition {
  readonly fd: number;
  private finished: CachedRendition | null = null;
  private failure: Error | null = null;
  private readonly waiters = new Set<() => void>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly partFile: string,
    /** Throws when the original changed since the transcode began (FILE-12). */
    readonly checkSource: () => void,
  ) {
    fs.writeFileSync(partFile, '', { mode: 0o600 });
    this.fd = fs.openSync(partFile, 'r');
  }

  /** The bytes written so far (all of them once finished). */
  written(): number {
    return this.finished?.size ?? fs.fstatSync(this.fd).size;
  }

  /** The kept file once the transcode finished, else null; throws the transcode's error when it failed. */
  outcome(): CachedRendition | null {
    if (this.failure) throw this.failure;
    return this.finished;
  }

  /** The transcode finished: readers now read the kept file (this descriptor closes). */
  finish(rendition: CachedRendition): void {
    this.finished = rendition;
    this.wake();
    fs.closeSync(this.fd);
  }

  fail(error: Error): void {
    this.failure = error;
    this.wake();
    fs.closeSync(this.fd);
  }

  /** Resolves when more than `offset` bytes are written, the transcode ended, or `timeoutMs` passed. */
  waitPast(offset: number, timeoutMs: number): Promise<void> {
    const ready = () => this.failure !== null || this.finished !== null || this.written() > offset;
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => {
      const deadline = Date.now() + timeoutMs;
      const check = () => {
        if (!ready() && Date.now() < deadline) return;
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
      this.timer ??= setInterval(() => this.poll(), POLL_MS);
    });
  }

  private poll(): void {
    for (const check of [...this.waiters]) check();
    if (this.waiters.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private wake(): void {
    this.poll();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
