import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PreviewHeartbeat, STUCK_AFTER_MS } from '../../../../lib/client/preview/previewHeartbeat';

function watched(answer: boolean) {
  const stopped: string[] = [];
  let pages = 1;
  const heartbeat: PreviewHeartbeat = new PreviewHeartbeat({
    ping: (sequence) => {
      if (answer) queueMicrotask(() => heartbeat.answered(sequence));
    },
    pagesInFrame: () => pages,
    onStopped: (reason) => stopped.push(reason),
  });
  return { heartbeat, stopped, losePages: () => (pages = 0) };
}

describe('SEC-9 the watchdog over a preview', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('SEC-9 a host page that answers is never stopped; one that does not is stopped as stuck after STUCK_AFTER_MS', async () => {
    const live = watched(true);
    const stuck = watched(false);
    live.heartbeat.start();
    stuck.heartbeat.start();
    await vi.advanceTimersByTimeAsync(STUCK_AFTER_MS);
    expect(stuck.stopped).toEqual([]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(stuck.stopped).toEqual(['stuck']);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(live.stopped).toEqual([]);
    expect(stuck.stopped).toEqual(['stuck']);
    live.heartbeat.stop();
  });

  it('SEC-9 a tab waking after a long freeze is not taken for a stuck preview on its first tick', async () => {
    const { heartbeat, stopped } = watched(false);
    heartbeat.start();
    await vi.advanceTimersByTimeAsync(1000);
    // The whole tab froze: the clock moved on, no timer ran.
    vi.setSystemTime(Date.now() + 10 * 60_000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(stopped).toEqual([]);
    heartbeat.stop();
  });

  it('SEC-9 the host page losing its previewed page (its process died) is a crash', async () => {
    const { heartbeat, stopped, losePages } = watched(true);
    heartbeat.start();
    await vi.advanceTimersByTimeAsync(2000);
    losePages();
    await vi.advanceTimersByTimeAsync(1000);
    expect(stopped).toEqual(['crashed']);
  });
});
