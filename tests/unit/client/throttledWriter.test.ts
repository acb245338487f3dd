import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttledWriter } from '../../../lib/client/throttledWriter';

describe('throttled snapshot writes', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('PWA-3 writes the first value at once and coalesces a burst into one write of the newest', () => {
    const written: number[] = [];
    const writer = throttledWriter((value: number) => written.push(value), 1000);
    writer.push(1);
    expect(written).toEqual([1]);
    for (let i = 2; i <= 20; i++) {
      vi.advanceTimersByTime(50);
      writer.push(i);
    }
    expect(written).toEqual([1]);
    vi.advanceTimersByTime(1000);
    expect(written).toEqual([1, 20]);
    vi.advanceTimersByTime(5000);
    expect(written).toEqual([1, 20]);
  });

  it('PWA-3 flush writes what is pending now, once', () => {
    const written: string[] = [];
    const writer = throttledWriter((value: string) => written.push(value), 1000);
    writer.push('a');
    writer.push('b');
    writer.flush();
    expect(written).toEqual(['a', 'b']);
    vi.advanceTimersByTime(2000);
    writer.flush();
    expect(written).toEqual(['a', 'b']);
  });
});
