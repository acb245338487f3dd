/** Something saved often (a live timeline): newest value wins, at most one write per interval. */
export interface ThrottledWriter<T> {
  push(value: T): void;
  /** Writes the pending value now (the view is closing). */
  flush(): void;
}

/**
 * The first value is written at once; values pushed within `intervalMs` of a write are coalesced
 * into one trailing write of the newest.
 */
export function throttledWriter<T>(
  write: (value: T) => void,
  intervalMs: number,
  now: () => number = Date.now,
): ThrottledWriter<T> {
  let pending: { value: T } | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastWrite = -Infinity;
  const writePending = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!pending) return;
    const { value } = pending;
    pending = null;
    lastWrite = now();
    write(value);
  };
  return {
    push(value) {
      pending = { value };
      if (timer !== undefined) return;
      const wait = lastWrite + intervalMs - now();
      if (wait <= 0) writePending();
      else timer = setTimeout(writePending, wait);
    },
    flush: writePending,
  };
}
