import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StallWatch } from '../../../server/runtime/sessions/stallWatch';

describe('the stall clock of a running turn (ACC-3)', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('ACC-3 stalls after the stall time without an event, not a millisecond before; an event ends the stall', () => {
    const changes: (number | null)[] = [];
    const watch = new StallWatch(10_000, () => changes.push(watch.stalledSince));
    vi.advanceTimersByTime(6_000);
    watch.touch();
    vi.advanceTimersByTime(9_999);
    expect(watch.stalledSince).toBeNull();
    vi.advanceTimersByTime(1);
    expect(watch.stalledSince).toBe(1_000_000 + 6_000 + 10_000);
    watch.touch();
    expect(watch.stalledSince).toBeNull();
    expect(changes).toEqual([1_016_000, null]);
    watch.stop();
    vi.advanceTimersByTime(60_000);
    expect(changes).toHaveLength(2);
  });

  it('ACC-3 a turn waiting on its person is never stalled; the clock starts again once the last question is answered', () => {
    const changes: (number | null)[] = [];
    const watch = new StallWatch(10_000, () => changes.push(watch.stalledSince));
    vi.advanceTimersByTime(10_000);
    expect(watch.stalledSince).toBe(1_010_000);
    // Asking ends a stall at once, and two open questions need two answers.
    watch.hold();
    watch.hold();
    expect(watch.stalledSince).toBeNull();
    vi.advanceTimersByTime(5 * 60_000);
    watch.touch();
    vi.advanceTimersByTime(5 * 60_000);
    expect(watch.stalledSince).toBeNull();
    watch.release();
    vi.advanceTimersByTime(60_000);
    expect(watch.stalledSince).toBeNull();
    watch.release();
    vi.advanceTimersByTime(9_999);
    expect(watch.stalledSince).toBeNull();
    vi.advanceTimersByTime(1);
    expect(watch.stalledSince).toBe(1_000_000 + 10_000 + 11 * 60_000 + 10_000);
    expect(changes).toEqual([1_010_000, null, 1_680_000]);
    watch.stop();
  });
});
