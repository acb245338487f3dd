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
        const answer = await httpGet(port, '/healthz', appHost).catch((error: Error) => ({ status: 0, body: error.message }));
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

});
