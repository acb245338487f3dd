import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../../fixtures/waitUntil';
import { HalfOpenSocket } from '../../fixtures/halfOpenSocket';
import { httpGet, startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

const HEADERS_TIMEOUT_MS = 2_000;
const REQUEST_TIMEOUT_MS = 4_000;

/** Waits until every socket is closed; the failure says how many were. */
async function waitAllClosed(sockets: HalfOpenSocket[], what: string, timeoutMs: number): Promise<void> {
  await waitUntil(() => sockets.every((s) => s.closed), what, timeoutMs).catch((error: Error) => {
    throw new Error(`${error.message} (${sockets.filter((s) => s.closed).length} of ${sockets.length} closed)`);
  });
}

describe('SEC-9 slow and half-open HTTP requests are dropped, connections are capped', () => {
  let runtime: RuntimeProcess | null = null;
  const sockets: HalfOpenSocket[] = [];

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await runtime?.stop();
    runtime = null;
  });
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
  });

  function open(port: number): HalfOpenSocket {
    const socket = new HalfOpenSocket(port);
    sockets.push(socket);
    return socket;
  }

  it('SEC-9 200 partial request heads, some still trickling bytes, are all answered 408 and closed after the headers timeout', async () => {
    runtime = await startRuntimeProcess({
      env: {
        HBCODE_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        HBCODE_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        HBCODE_MAX_CONNECTIONS: '400',
      },
    });
    const { port, appHost } = runtime;
    const heads = Array.from({ length: 200 }, () => open(port));
    await Promise.all(heads.map((s) => s.connected));
    for (const socket of heads) socket.write(`GET / HTTP/1.1\r\nHost: ${appHost}\r\nX-Slow: `);
    // A tenth keep sending a header byte now and then, which must not keep them alive.
    const trickling = heads.slice(0, 20);
    const trickle = setInterval(() => trickling.forEach((s) => s.write('a')), 200);
    try {
      // The runtime still answers a whole request while they wait.
      expect((await httpGet(port, '/healthz', appHost)).status).toBe(200);
      await waitAllClosed(heads, 'all 200 partial heads are closed', 30_000);
    } finally {
      clearInterval(trickle);
    }
    expect(heads.filter((s) => s.closed)).toHaveLength(200);
    expect(heads.filter((s) => s.answer.startsWith('HTTP/1.1 408 '))).toHaveLength(200);
    expect((await httpGet(port, '/healthz', appHost)).status).toBe(200);
  });

  it('SEC-9 a connection over the cap takes the place of the oldest unfinished request head, so the cap holds and the newest clients are served', async () => {
    runtime = await startRuntimeProcess({ env: { HBCODE_MAX_CONNECTIONS: '20' } });
    const { port, appHost } = runtime;
    const holders = Array.from({ length: 20 }, () => open(port));
    await Promise.all(holders.map((s) => s.connected));
    for (const socket of holders) socket.write(`GET / HTTP/1.1\r\nHost: ${appHost}\r\n`);
    await waitUntil(
      async () => (await httpGet(port, '/healthz', appHost).catch(() => ({ status: 0 }))).status === 200,
      'a whole request is served over the cap',
      15_000,
    );
    // The request above took the place of the oldest holder, which was told so.
    await waitUntil(() => holders[0]!.closed, 'the oldest unfinished head gave way', 15_000);
    expect(holders[0]!.answer).toMatch(/^HTTP\/1\.1 503 /);
    const extra = Array.from({ length: 30 }, () => open(port));
    await Promise.all(extra.map((s) => s.connected));
    await waitAllClosed(holders, 'every older unfinished head gave way to a newer connection', 15_000);
    expect((await httpGet(port, '/healthz', appHost)).status).toBe(200);
  });
});
