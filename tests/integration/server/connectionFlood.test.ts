import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpGet, startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { waitUntil } from '../../fixtures/waitUntil';

/**
 * Slow clients on loopback that send part of a request head, a byte now and then, and open a new
 * connection as soon as one is closed, until `stop()`.
 */
function slowlorisFlood(port: number, host: string, count: number): { stop(): void; reconnects(): number } {
  let stopped = false;
  let reconnects = 0;
  const open = new Set<net.Socket>();
  const connect = () => {
    if (stopped) return;
    const socket = net.connect({ host: '127.0.0.1', port });
    open.add(socket);
    socket.on('connect', () => socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nX-Slow: `));
    socket.on('error', () => {});
    socket.on('close', () => {
      open.delete(socket);
      reconnects++;
      setImmediate(connect);
    });
  };
  for (let i = 0; i < count; i++) connect();
  const trickle = setInterval(() => open.forEach((s) => s.writable && s.write('a')), 500);
  return {
    stop() {
      stopped = true;
      clearInterval(trickle);
      for (const socket of open) socket.destroy();
    },
    reconnects: () => reconnects,
  };
}

describe('SEC-9 floods from loopback', () => {
  let runtime: RuntimeProcess | null = null;
  afterEach(async () => {
    await runtime?.stop();
    runtime = null;
  });

  it('SEC-9 130 slowloris connections that reconnect at once over a cap of 128: a real client keeps being served (at least 99 of 100 requests)', async () => {
    runtime = await startRuntimeProcess();
    const { port, appHost } = runtime;
    const flood = slowlorisFlood(port, appHost, 130);
    try {
      // The flood fills the cap and starts to reconnect before the real client asks anything.
      await waitUntil(() => flood.reconnects() >= 2, 'the flood is over the cap and reconnecting', 20_000);
      let served = 0;
      const failures: string[] = [];
      for (let i = 0; i < 100; i++) {
        const answer = await httpGet(port, '/healthz', appHost).catch((error: Error) => ({
          status: 0,
          body: error.message,
        }));
        if (answer.status === 200) served++;
        else failures.push(`${answer.status} ${answer.body}`);
      }
      expect(served, failures.join('; ')).toBeGreaterThanOrEqual(99);
      // The cap was full all along: the slow clients over it were dropped and came back.
      expect(flood.reconnects()).toBeGreaterThanOrEqual(2);
    } finally {
      flood.stop();
    }
  });

  it('SEC-9 unfinished request heads over their byte budget: the largest are closed 431 until the rest fit, and a whole big head is still served', async () => {
    const budget = 1024 * 1024;
    runtime = await startRuntimeProcess({ env: { HBCODE_MAX_UNFINISHED_HEAD_BYTES: String(budget) } });
    const { port, appHost } = runtime;
    const piece = 256 * 1024;
    const heads = Array.from({ length: 12 }, (_, i) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      const head = { socket, sent: 0, answer: '', closed: false };
      socket.on('data', (chunk) => (head.answer += chunk.toString('latin1')));
      socket.on('error', () => {});
      socket.on('close', () => (head.closed = true));
      // Sizes differ, so which give way is decided by size: the larger ones.
      const bytes = `GET / HTTP/1.1\r\nHost: ${appHost}\r\nX-Slow: ${'a'.repeat(piece + i * 1024)}`;
      socket.write(bytes, () => (head.sent = bytes.length));
      return head;
    });
    try {
      const open = () => heads.filter((h) => !h.closed);
      await waitUntil(
        () => heads.every((h) => h.sent > 0 || h.closed) && open().reduce((sum, h) => sum + h.sent, 0) <= budget,
        'the unfinished heads left open fit the budget',
        20_000,
      );
      const closed = heads.filter((h) => h.closed);
      expect(closed.length).toBeGreaterThanOrEqual(8);
      for (const head of closed) expect(head.answer).toMatch(/^HTTP\/1\.1 431 /);
      // The ones kept are the smallest.
      expect(Math.max(...open().map((h) => h.sent))).toBeLessThan(Math.min(...closed.map((h) => h.sent)));
      // A head near Node's limit that arrives whole is answered, as a cookie-laden request must be
      // (alone: beside the slow heads it would be the largest of them while it arrives).
      for (const head of heads) head.socket.destroy();
      const cookie = Array.from({ length: 180 }, (_, i) => `c${i}=${'v'.repeat(4000)}`).join('; ');
      const answer = await httpGet(port, '/healthz', appHost, 'GET', { cookie });
      expect(answer.status).toBe(200);
    } finally {
      for (const head of heads) head.socket.destroy();
    }
  });
});
