/** SEC-9: requests of one preview the app answers at once; more wait in line. */
export const MAX_ACTIVE_RELAYS = 16;
/** Past this many waiting, a request is answered 503 at once. */
export const MAX_WAITING_RELAYS = 256;

interface Waiting {
  start: () => Promise<void>;
  drop: () => void;
}

/**
 * Bounds what one preview can make the app do at a time (SEC-9): each relayed request holds a
 * few verified chunks in the app, so a page firing thousands of fetches gets them answered a
 * few at a time. `close` aborts the active ones (their `signal`) and drops the waiting ones.
 */
export class RelayLimiter {
  private active = 0;
  private readonly waiting: Waiting[] = [];
  private readonly controller = new AbortController();

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Runs `start` now or once a slot frees; false (and nothing runs) when the line is full or closed. */
  admit(start: () => Promise<void>, drop: () => void): boolean {
    if (this.controller.signal.aborted) return false;
    if (this.active < MAX_ACTIVE_RELAYS) {
      this.run(start);
      return true;
    }
    if (this.waiting.length >= MAX_WAITING_RELAYS) return false;
    this.waiting.push({ start, drop });
    return true;
  }

  close(): void {
    this.controller.abort();
    for (const entry of this.waiting.splice(0)) entry.drop();
  }

  private run(start: () => Promise<void>): void {
    this.active += 1;
    void start()
      .catch(() => undefined)
      .finally(() => {
        this.active -= 1;
        const next = this.controller.signal.aborted ? undefined : this.waiting.shift();
        if (next) this.run(next.start);
      });
  }
}
