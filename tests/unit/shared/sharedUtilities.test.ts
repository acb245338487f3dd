import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { APP_RECONNECT_BACKOFF, backoffDelay } from '../../../lib/shared/backoff';
import { BufferPool } from '../../../lib/shared/bufferPool';
import { parseIntegerFlag } from '../../../lib/shared/integerFlag';
import { parseJsonWith } from '../../../lib/shared/parseJsonWith';
import { withoutEscapes } from '../../../lib/terminal/withoutEscapes';

describe('the utilities every realm shares', () => {
  it('PWA-4 a backoff doubles from its first wait, stops at its cap and jitters by a quarter either way', () => {
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, APP_RECONNECT_BACKOFF, () => 0.5))).toEqual([
      500, 1_000, 2_000, 4_000,
    ]);
    expect(backoffDelay(1_000, APP_RECONNECT_BACKOFF, () => 1)).toBe(18_750);
    expect(backoffDelay(1_000, { firstMs: 500, maxMs: 30_000 }, () => 0)).toBe(22_500);
  });

  it('a buffer pool hands back what was released, keeps no more than asked and skips buffers it may not reuse', () => {
    let made = 0;
    const pool = new BufferPool(() => new Uint8Array(4 + made++), { keep: 1, reusable: (b) => b.length === 4 });
    const [first, oversized, third] = [pool.acquire(), pool.acquire(), pool.acquire()];
    pool.release(oversized); // not reusable: dropped
    pool.release(first);
    pool.release(third); // one is kept already: dropped
    expect(pool.acquire()).toBe(first);
    expect(pool.acquire()).not.toBe(third);
    expect(made).toBe(4);
  });

  it('JSON is parsed and checked in one step: bad JSON and a value of the wrong shape are both null', () => {
    const schema = z.object({ o: z.number() });
    expect(parseJsonWith(schema, '{"o":3}')).toEqual({ o: 3 });
    expect(parseJsonWith(schema, '{"o":"3"}')).toBeNull();
    expect(parseJsonWith(schema, '{o:3')).toBeNull();
  });

  it('RPC-5 an integer flag takes digits in range only and names the flag when it refuses', () => {
    expect(parseIntegerFlag('8787', '--port', { min: 0, max: 65535 })).toBe(8787);
    expect(() => parseIntegerFlag('70000', '--port', { min: 0, max: 65535 })).toThrow(
      '--port must be a whole number from 0 to 65535, not "70000".',
    );
    for (const raw of ['1e3', '0x10', ' 5', '1.5', ''])
      expect(() => parseIntegerFlag(raw, 'HBCODE_X', { min: 1 })).toThrow(
        `HBCODE_X must be a whole number of at least 1, not ${JSON.stringify(raw)}.`,
      );
  });

  it('ACC-3 escape sequences are dropped by the terminal parser, text kept', () => {
    expect(withoutEscapes('\u001b[31merror\u001b[0m: \u001b]0;title\u0007bad \u001b[2Kflag')).toBe('error: bad flag');
  });
});
