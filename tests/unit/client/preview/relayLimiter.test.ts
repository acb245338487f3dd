import { describe, expect, it } from 'vitest';
import { MAX_ACTIVE_RELAYS, MAX_WAITING_RELAYS, RelayLimiter } from '../../../../lib/client/preview/relayLimiter';

/** A task that runs until the test releases it. */
function heldTask(started: number[], id: number) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { start: () => (started.push(id), held), release: () => release() };
}

describe('SEC-9 one preview gets a bounded number of relayed requests at a time', () => {
  it('SEC-9 runs MAX_ACTIVE_RELAYS at once, lines up the rest, refuses past the line, starts the next when one ends', async () => {
    const limiter = new RelayLimiter();
    const started: number[] = [];
    const tasks = Array.from({ length: MAX_ACTIVE_RELAYS + MAX_WAITING_RELAYS + 5 }, (_, id) => heldTask(started, id));
    const admitted = tasks.map((task) => limiter.admit(task.start, () => undefined));
    expect(started.length).toBe(MAX_ACTIVE_RELAYS);
    expect(admitted.filter(Boolean).length).toBe(MAX_ACTIVE_RELAYS + MAX_WAITING_RELAYS);
    expect(admitted.slice(-5)).toEqual([false, false, false, false, false]);
    tasks[0]!.release();
    for (let i = 0; i < 10 && started.length === MAX_ACTIVE_RELAYS; i++) await Promise.resolve();
    expect(started).toContain(MAX_ACTIVE_RELAYS);
    expect(started.length).toBe(MAX_ACTIVE_RELAYS + 1);
  });

  it('SEC-9 close aborts the running ones, drops the waiting ones and admits nothing more', () => {
    const limiter = new RelayLimiter();
    const started: number[] = [];
    let dropped = 0;
    for (let id = 0; id < MAX_ACTIVE_RELAYS + 3; id++) limiter.admit(heldTask(started, id).start, () => (dropped += 1));
    limiter.close();
    expect(limiter.signal.aborted).toBe(true);
    expect(dropped).toBe(3);
    expect(limiter.admit(heldTask(started, 99).start, () => undefined)).toBe(false);
  });
});
