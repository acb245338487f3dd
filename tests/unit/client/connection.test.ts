import { describe, expect, it } from 'vitest';
import { RuntimeConnection, type ConnectionEnvironment, type ConnectionState } from '../../../lib/client/connection';
import type { WebSocketLike } from '../../../lib/client/rpcClient';
import { PROTOCOL_VERSION } from '../../../lib/protocol/version';

type Listener = (event: { data?: unknown; code?: number; reason?: string }) => void;

/** A socket the test opens, answers and closes by hand. */
class FakeSocket implements WebSocketLike {
  readyState = 0;
  readonly sent: { id: number; method: string; params: unknown }[] = [];
  private readonly listeners = new Map<string, Listener[]>();
  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as { id: number; method: string; params: unknown });
  }
  close(code = 1000, reason = ''): void {
    this.drop(code, reason);
  }
  open(): void {
    this.readyState = 1;
    this.emit('open', {});
  }
  answer(result: unknown): void {
    const request = this.sent.at(-1)!;
    this.emit('message', { data: JSON.stringify({ jsonrpc: '2.0', id: request.id, result }) });
  }
  refuse(code: string, message: string): void {
    const request = this.sent.at(-1)!;
    this.emit('message', {
      data: JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code: -32001, message, data: { code } } }),
    });
  }
  drop(code = 1006, reason = ''): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.emit('close', { code, reason });
  }
  private emit(type: string, event: Parameters<Listener>[0]): void {
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }
}

/** Time, network, visibility and sockets under the test's control. */
function harness() {
  const sockets: FakeSocket[] = [];
  const timers = new Map<number, { run: () => void; at: number }>();
  let nextTimer = 1;
  let clock = 1_000;
  let wake: (() => void) | null = null;
  const env = { online: true, hidden: false, cookieClears: 0 };
  const environment: ConnectionEnvironment = {
    createSocket() {
      const socket = new FakeSocket();
      sockets.push(socket);
      return socket;
    },
    isOnline: () => env.online,
    isHidden: () => env.hidden,
    onWake(callback) {
      wake = callback;
      return () => {
        wake = null;
      };
    },
    setTimer(run, ms) {
      const id = nextTimer++;
      timers.set(id, { run, at: clock + ms });
      return id;
    },
    clearTimer: (id) => void timers.delete(id as number),
    now: () => clock,
    clearCookies: () => void env.cookieClears++,
  };
  const connection = new RuntimeConnection({ url: 'ws://hbcode.localhost/rpc', token: 'secret', environment });
  const states: ConnectionState[] = [];
  connection.subscribe((state) => states.push(state));
  return {
    connection,
    sockets,
    env,
    states,
    last: () => sockets.at(-1)!,
    state: () => connection.current,
    now: () => clock,
    wake: () => wake?.(),
    hasWakeListener: () => wake !== null,
    pendingTimers: () => timers.size,
    /** Runs every timer due within `ms`. */
    advance(ms: number) {
      clock += ms;
      for (const [id, timer] of [...timers]) {
        if (timer.at <= clock) {
          timers.delete(id);
          timer.run();
        }
      }
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

async function openWith(h: ReturnType<typeof harness>): Promise<void> {
  h.last().open();
  await settle();
  expect(h.last().sent[0]).toMatchObject({
    method: 'auth.hello',
    params: { token: 'secret', protocolVersion: PROTOCOL_VERSION },
  });
  h.last().answer({ protocolVersion: PROTOCOL_VERSION, serverVersion: 'x', deviceId: 'd' });
  await settle();
}

describe('PWA-4 the reconnect state machine', () => {
  it('PWA-4 connects, says hello with the token, and is open', async () => {
    const h = harness();
    h.connection.start();
    expect(h.state()).toEqual({ kind: 'connecting', attempt: 0 });
    await openWith(h);
    expect(h.state().kind).toBe('open');
  });

  it('SEC-8 cookies are cleared once each connection is open and before each retry, without holding the socket back', async () => {
    const h = harness();
    h.connection.start();
    expect(h.sockets).toHaveLength(1);
    await openWith(h);
    expect(h.state().kind).toBe('open');
    expect(h.env.cookieClears).toBe(1);
    h.last().drop();
    await settle();
    expect(h.env.cookieClears).toBe(2);
    const state = h.state();
    if (state.kind !== 'waiting') throw new Error(`expected to wait, got ${state.kind}`);
    h.advance(state.retryAt - h.now());
    expect(h.sockets).toHaveLength(2);
    await openWith(h);
    expect(h.env.cookieClears).toBe(3);
  });

  it('PWA-4 a dropped connection waits a growing, capped backoff, then connects again and resets it', async () => {
    const h = harness();
    h.connection.start();
    await openWith(h);
    const waits: number[] = [];
    for (let attempt = 0; attempt < 9; attempt++) {
      h.last().drop();
      await settle();
      const state = h.state();
      expect(state.kind).toBe('waiting');
      if (state.kind !== 'waiting') return;
      const wait = state.retryAt - h.now();
      waits.push(wait);
      expect(h.sockets).toHaveLength(attempt + 1);
      h.advance(wait - 1);
      expect(h.sockets).toHaveLength(attempt + 1); // not a moment early
      h.advance(1);
      expect(h.sockets).toHaveLength(attempt + 2);
      expect(h.state()).toEqual({ kind: 'connecting', attempt: attempt + 1 });
    }
    expect(waits[0]).toBeGreaterThanOrEqual(375);
    expect(waits[0]).toBeLessThanOrEqual(625);
    expect(waits[3]).toBeGreaterThan(waits[0]! * 4);
    for (const wait of waits) expect(wait).toBeLessThanOrEqual(15_000 * 1.25);
    expect(waits.at(-1)).toBeGreaterThanOrEqual(15_000 * 0.75);
    await openWith(h);
    expect(h.state().kind).toBe('open');
    h.last().drop();
    await settle();
    // A successful hello reset the backoff: the next wait is a first wait again.
    expect(h.state()).toMatchObject({ kind: 'waiting', attempt: 1 });
    const state = h.state();
    if (state.kind === 'waiting') expect(state.retryAt - h.now()).toBeLessThanOrEqual(625);
  });

  it('PWA-4 waiting retries at once when the network comes back or the page becomes visible, not while hidden', async () => {
    const h = harness();
    h.connection.start();
    await openWith(h);
    h.last().drop();
    await settle();
    expect(h.state().kind).toBe('waiting');
    h.env.hidden = true;
    h.wake();
    expect(h.sockets).toHaveLength(1);
    h.env.hidden = false;
    h.wake();
    expect(h.sockets).toHaveLength(2);
    expect(h.state().kind).toBe('connecting');
    expect(h.pendingTimers()).toBe(1); // the new attempt's open deadline only: the backoff timer was cancelled, not left to fire twice
  });

  it('PWA-5 back in view, an open socket that does not answer within the check time is replaced at once; one that answers stays', async () => {
    const h = harness();
    h.connection.start();
    await openWith(h);
    const live = h.last();
    h.env.hidden = true;
    h.wake();
    expect(live.sent).toHaveLength(1); // nothing is asked while hidden
    h.env.hidden = false;
    h.wake();
    h.wake(); // a second wake-up while the question is out asks nothing more
    expect(live.sent.map((r) => r.method)).toEqual(['auth.hello', 'app.build']);
    live.answer({ digest: 'a'.repeat(64) });
    await settle();
    h.advance(60_000);
    expect(h.sockets).toHaveLength(1);
    expect(h.state().kind).toBe('open');

    // The network dropped the socket while the phone slept: the question goes unanswered.
    h.wake();
    expect(live.sent.at(-1)!.method).toBe('app.build');
    h.advance(3_999);
    expect(h.sockets).toHaveLength(1);
    h.advance(1);
    expect(h.sockets).toHaveLength(2);
    expect(h.state()).toEqual({ kind: 'connecting', attempt: 0 });
    await openWith(h);
    expect(h.state().kind).toBe('open');
    // The dead socket's late close changes nothing.
    live.drop();
    await settle();
    expect(h.state().kind).toBe('open');
    expect(h.sockets).toHaveLength(2);
  });

  it('PWA-4 offline is its own state, and coming online connects without waiting', async () => {
    const h = harness();
    h.env.online = false;
    h.connection.start();
    expect(h.state()).toEqual({ kind: 'offline' });
    expect(h.sockets).toHaveLength(0);
    h.env.online = true;
    h.wake();
    expect(h.state().kind).toBe('connecting');
    await openWith(h);
    h.env.online = false;
    h.last().drop();
    await settle();
    expect(h.state()).toEqual({ kind: 'offline' });
  });

  it('RPC-2 a refused token stops retrying until the user pairs again', async () => {
    const h = harness();
    h.connection.start();
    h.last().open();
    await settle();
    h.last().refuse('unauthorized', 'This token is not valid. Pair this device again.');
    await settle();
    expect(h.state()).toEqual({ kind: 'unauthorized', reason: 'This token is not valid. Pair this device again.' });
    h.last().drop(4401, 'unauthorized');
    await settle();
    h.advance(60_000);
    h.wake();
    expect(h.sockets).toHaveLength(1);
    expect(h.state().kind).toBe('unauthorized');
  });

  it('RPC-2 a socket closed with 4401 (device revoked) is unauthorized, not retried', async () => {
    const h = harness();
    h.connection.start();
    await openWith(h);
    h.last().drop(4401, 'This device was revoked.');
    await settle();
    expect(h.state()).toEqual({ kind: 'unauthorized', reason: 'This device was revoked.' });
    expect(h.pendingTimers()).toBe(0);
  });

  it('PWA-4 late events of a replaced socket are ignored', async () => {
    const h = harness();
    h.connection.start();
    const first = h.last();
    h.env.online = false;
    first.drop();
    await settle();
    expect(h.state()).toEqual({ kind: 'offline' });
    h.env.online = true;
    h.wake();
    const second = h.last();
    expect(second).not.toBe(first);
    // The first socket answers its hello late and closes again: nothing changes.
    first.open();
    first.drop(4401, 'stale');
    await settle();
    expect(h.state().kind).toBe('connecting');
    await openWith(h);
    expect(h.state().kind).toBe('open');
  });

  it('RLY-4 a socket that neither opens nor answers its hello in time is given up and retried with the backoff', async () => {
    const h = harness();
    h.connection.start();
    const silent = h.last();
    h.advance(19_999);
    expect(h.state().kind).toBe('connecting');
    h.advance(1);
    expect(silent.readyState).toBe(3);
    const state = h.state();
    if (state.kind !== 'waiting') throw new Error(`expected to wait, got ${state.kind}`);
    expect(state.reason).toMatch(/did not answer in time/);
    h.advance(state.retryAt - h.now());
    expect(h.sockets).toHaveLength(2);
    // Open but no answer to auth.hello: the same deadline.
    h.last().open();
    await settle();
    h.advance(20_000);
    expect(h.state().kind).toBe('waiting');
    expect(h.sockets).toHaveLength(2);
    // An attempt that opens in time keeps its socket past the deadline.
    const retry = h.state();
    if (retry.kind !== 'waiting') throw new Error('expected to wait');
    h.advance(retry.retryAt - h.now());
    await openWith(h);
    h.advance(60_000);
    expect(h.state().kind).toBe('open');
    expect(h.sockets).toHaveLength(3);
  });

  it('PWA-4 stop closes the open socket, cancels the retry and stops listening for wake-ups', async () => {
    const h = harness();
    h.connection.start();
    expect(h.hasWakeListener()).toBe(true);
    await openWith(h);
    const socket = h.last();
    h.connection.stop();
    expect(socket.readyState).toBe(3);
    await settle();
    expect(h.state()).toEqual({ kind: 'closed' });
    expect(h.hasWakeListener()).toBe(false);
    expect(h.pendingTimers()).toBe(0);
  });
});
