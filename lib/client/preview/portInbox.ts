import type { ZodMiniType } from 'zod/mini';

/**
 * The messages of one MessagePort as an awaitable queue, each parsed with its schema first
 * (STYLE: zod at every edge). A message that does not parse closes the inbox: the other side is
 * not speaking the bridge protocol, and nothing it sent is trusted.
 */
export class PortInbox<T> {
  private readonly queued: T[] = [];
  private waiting: ((value: T | null) => void) | null = null;
  private closed = false;

  constructor(
    readonly port: MessagePort,
    private readonly schema: ZodMiniType<T>,
  ) {
    port.onmessage = (event: MessageEvent) => {
      const parsed = schema.safeParse(event.data);
      if (!parsed.success) return this.close();
      if (this.waiting) {
        const wake = this.waiting;
        this.waiting = null;
        wake(parsed.data);
      } else this.queued.push(parsed.data);
    };
  }

  /** The next message; null once closed, or when `timeoutMs` passes first. */
  next(timeoutMs?: number): Promise<T | null> {
    const queued = this.queued.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer =
        timeoutMs === undefined
          ? null
          : setTimeout(() => {
              this.waiting = null;
              resolve(null);
            }, timeoutMs);
      this.waiting = (value) => {
        if (timer) clearTimeout(timer);
        resolve(value);
      };
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.port.onmessage = null;
    this.port.close();
    this.waiting?.(null);
    this.waiting = null;
  }
}
