import { describe, expect, it } from 'vitest';
import { StartQueue } from '../../../../server/runtime/process/startQueue';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('PERF-8 child starts one per event-loop turn', () => {
  it('PERF-8 starts run in order, one per turn, so other work runs between two forks', async () => {
    const queue = new StartQueue();
    const order: string[] = [];
    const started = [1, 2, 3].map((n) => queue.run(() => order.push(`start ${n}`)));
    expect(order).toEqual([]);
    await nextTurn();
    order.push('other work');
    await Promise.all(started);
    expect(order).toEqual(['start 1', 'other work', 'start 2', 'start 3']);
  });

  it('PERF-8 a start aborted while it waits never runs and rejects with the reason', async () => {
    const queue = new StartQueue();
    const abort = new AbortController();
    const ran: number[] = [];
    const first = queue.run(() => ran.push(1));
    const second = queue.run(() => ran.push(2), abort.signal);
    abort.abort('cancel');
    await expect(second).rejects.toBe('cancel');
    await first;
    await nextTurn();
    expect(ran).toEqual([1]);
  });

  it('PERF-8 a start that throws rejects without stopping the queue', async () => {
    const queue = new StartQueue();
    const failing = queue.run(() => {
      throw new Error('spawn EINVAL');
    });
    const next = queue.run(() => 'ok');
    await expect(failing).rejects.toThrow('spawn EINVAL');
    await expect(next).resolves.toBe('ok');
  });
});
