import { describe, expect, it } from 'vitest';
import { MAX_CHANNEL_FRAME_BYTES } from '../../../lib/relay/relayWire';
import { FrameJoiner, NATS_PART_BYTES } from '../../../relay/natsWire';
import { NodeBudget } from '../../../relay/nodeBudget';
import { ConnectRateLimiter } from '../../../relay/rateLimit';
import { closeReason } from '../../../relay/relayContext';
import { parseRelayFlags } from '../../../relay/relayFlags';

// RLY-4: the pieces that bound a node's memory and its callers' attempts.
describe('FrameJoiner', () => {
  it('joins parts in order and hands a single part through whole', () => {
    const joiner = new FrameJoiner(new NodeBudget(Infinity));
    expect(joiner.add(Buffer.from('ab'), true)).toBeNull();
    expect(joiner.pendingBytes).toBe(2);
    expect(Buffer.from(joiner.add(Buffer.from('cd'), false) as Uint8Array).toString()).toBe('abcd');
    expect(joiner.pendingBytes).toBe(0);
    expect(Buffer.from(joiner.add(Buffer.from('x'), false) as Uint8Array).toString()).toBe('x');
  });

  it('drops a frame that grows past the limit, with the rest of its parts, then joins the next', () => {
    const joiner = new FrameJoiner(new NodeBudget(Infinity));
    const part = Buffer.alloc(NATS_PART_BYTES);
    let result: ReturnType<FrameJoiner['add']> = null;
    let parts = 0;
    while (result !== 'too_large' && parts < 100) {
      result = joiner.add(part, true);
      parts++;
    }
    expect(result).toBe('too_large');
    expect(parts * NATS_PART_BYTES).toBeGreaterThan(MAX_CHANNEL_FRAME_BYTES);
    expect(joiner.pendingBytes).toBe(0);
    expect(joiner.add(part, true)).toBeNull();
    expect(joiner.add(part, false)).toBeNull();
    expect(Buffer.from(joiner.add(Buffer.from('next'), false) as Uint8Array).toString()).toBe('next');
  });

  it('counts the parts it holds in the node budget and refuses one that would not fit, letting go of the rest', () => {
    const budget = new NodeBudget(10);
    const joiner = new FrameJoiner(budget);
    expect(joiner.add(Buffer.alloc(6), true)).toBeNull();
    expect(budget.heldBytes).toBe(6);
    expect(joiner.add(Buffer.alloc(6), true)).toBe('over_budget');
    expect(budget.heldBytes).toBe(0);
    expect(joiner.add(Buffer.alloc(4), true)).toBeNull();
    expect((joiner.add(Buffer.alloc(4), false) as Uint8Array).length).toBe(8);
    expect(budget.heldBytes).toBe(0);
    joiner.add(Buffer.alloc(3), true);
    joiner.release();
    expect(budget.heldBytes).toBe(0);
  });
});

describe('ConnectRateLimiter', () => {
  it('allows a burst per address, refills over the period, and forgets full buckets', () => {
    let now = 0;
    const limiter = new ConnectRateLimiter({ burst: 3, periodMs: 3_000 }, () => now);
    expect([1, 2, 3, 4].map(() => limiter.take('a'))).toEqual([true, true, true, false]);
    expect(limiter.take('b')).toBe(true);
    now += 1_000;
    expect(limiter.take('a')).toBe(true);
    expect(limiter.take('a')).toBe(false);
    now += 10_000;
    limiter.sweep();
    expect(limiter.trackedAddresses).toBe(0);
  });
});

describe('close frames and flags', () => {
  it('sends only reasons that fit a close frame', () => {
    expect(Buffer.byteLength(closeReason('é'.repeat(100)))).toBeLessThanOrEqual(123);
  });

  it('parses the relay’s command line', () => {
    const options = parseRelayFlags([
      '--public-url',
      'https://relay.example',
      '--nats',
      'nats://n:4222',
      '--port',
      '9000',
      '--tls-port',
      '443',
      '--connect-burst',
      '5',
    ]);
    expect(options).toMatchObject({
      publicUrl: 'https://relay.example',
      natsUrl: 'nats://n:4222',
      port: 9000,
      tlsPort: 443,
      connectRate: { burst: 5, periodMs: 10_000 },
    });
    // RLY-1: the app is no longer the relay's to serve: the flags that named it are gone.
    for (const gone of ['--app-dir', '--preview-origin', '--preview-origin-template'])
      expect(() =>
        parseRelayFlags(['--public-url', 'https://relay.example', '--nats', 'nats://n:4222', gone, 'x']),
      ).toThrow();
    expect(() => parseRelayFlags(['--public-url', 'https://relay.example'])).toThrow(/--nats/);
    expect(() =>
      parseRelayFlags(['--public-url', 'https://r.example', '--nats', 'nats://n', '--max-connections', '0']),
    ).toThrow(/--max-connections/);
  });

  it('RLY-4 reads the node’s bounds: the memory budget in MiB, the unrouted frame limit and the link ping interval', () => {
    const base = ['--public-url', 'https://relay.example', '--nats', 'nats://n:4222'];
    expect(parseRelayFlags(base)).toMatchObject({
      memoryBudgetBytes: 256 * 1024 * 1024,
      unroutedFrameBytes: 8192,
      linkPingMs: 10_000,
    });
    expect(
      parseRelayFlags([
        ...base,
        '--memory-budget-mib',
        '64',
        '--unrouted-frame-bytes',
        '4096',
        '--link-ping-ms',
        '500',
      ]),
    ).toMatchObject({ memoryBudgetBytes: 64 * 1024 * 1024, unroutedFrameBytes: 4096, linkPingMs: 500 });
    expect(() => parseRelayFlags([...base, '--memory-budget-mib', 'lots'])).toThrow(/--memory-budget-mib/);
    expect(() => parseRelayFlags([...base, '--memory-budget-mib', '16'])).toThrow(
      /--memory-budget-mib must be a whole number of MiB, at least 64/,
    );
    expect(() => parseRelayFlags([...base, '--unrouted-frame-bytes', '100'])).toThrow(
      /--unrouted-frame-bytes must be a whole number of bytes, at least 1024/,
    );
    expect(() => parseRelayFlags([...base, '--link-ping-ms', '10'])).toThrow(/--link-ping-ms/);
  });
});
