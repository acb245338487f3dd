/** Live row updates go out at most this often per command (SES-4). */
const ROW_UPDATE_INTERVAL_MS = 100;

interface Entry {
  last: number;
  timer: NodeJS.Timeout | undefined;
  closing: boolean;
}

/**
 * Coalesces change signals per key so that `emit` runs at most once per interval for each key,
 * and always once more after the last change: the final state is never lost, only delayed.
 */
export class RowThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly emit: (key: string) => void,
    private readonly intervalMs = ROW_UPDATE_INTERVAL_MS,
  ) {}

  /** Signals a change. With `last`, the key is forgotten once this change has been emitted. */
  touch(key: string, last = false): void {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { last: -Infinity, timer: undefined, closing: false };
      this.entries.set(key, entry);
    }
    entry.closing ||= last;
    if (entry.timer) return;
    const wait = entry.last + this.intervalMs - Date.now();
    if (wait <= 0) this.fire(key, entry);
    else entry.timer = setTimeout(() => this.fire(key, entry), wait);
  }

  private fire(key: string, entry: Entry): void {
    entry.timer = undefined;
    entry.last = Date.now();
    if (entry.closing) this.entries.delete(key);
    this.emit(key);
  }

  /** Drops pending emissions for keys matching the predicate (their rows are gone). */
  forget(matches: (key: string) => boolean): void {
    for (const [key, entry] of this.entries) {
      if (!matches(key)) continue;
      clearTimeout(entry.timer);
      this.entries.delete(key);
    }
  }

  /** Emits every pending change now (shutdown). */
  flush(): void {
    this.flushMatching(() => true);
  }

  /** Emits the pending changes of keys matching the predicate now (their run ended). */
  flushMatching(matches: (key: string) => boolean): void {
    for (const [key, entry] of this.entries) {
      if (!entry.timer || !matches(key)) continue;
      clearTimeout(entry.timer);
      this.fire(key, entry);
    }
  }
}
