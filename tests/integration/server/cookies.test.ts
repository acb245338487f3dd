import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PROTOCOL_VERSION } from '../../../lib/protocol/version';
import { waitUntil } from '../../fixtures/waitUntil';
import { HalfOpenSocket } from '../../fixtures/halfOpenSocket';
import { httpGet, startRuntimeProcess, TEST_TOKEN, type RuntimeProcess } from '../../fixtures/runtimeProcess';

const PREVIEW_ID = '0123456789abcdef0123456789abcdef';

/** A Cookie header as a browser sends it: `count` cookies whose name and value take `bytesEach`. */
function cookieHeader(count: number, bytesEach: number): string {
  return Array.from({ length: count }, (_, i) => {
    const name = `c${i}`;
    return `${name}=${'x'.repeat(bytesEach - name.length)}`;
  }).join('; ');
}

/** The 60 cookies of 3.9 KB that locked users out, and the most Chromium keeps for one site. */
const STUFFED = cookieHeader(60, 3_900);
const CHROMIUM_MAXIMUM = cookieHeader(180, 4_096);

describe('RPC-2 / SEC-8 cookies never affect the app, and are cleared', () => {
  let runtime: RuntimeProcess;

  beforeAll(async () => {
    runtime = await startRuntimeProcess();
  });
  afterAll(async () => {
    await runtime?.stop();
  });

  /** Opens /rpc with the given Cookie header and says hello; the outcome is the HTTP status or the hello's answer. */
  function helloWithCookies(cookie: string): Promise<{ status: number; serverVersion?: string }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${runtime.port}/rpc`, {
        headers: { host: runtime.appHost, cookie },
        origin: runtime.appOrigin,
        perMessageDeflate: false,
      });
      ws.once('unexpected-response', (_req, res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0 });
        ws.terminate();
      });
      ws.once('error', reject);
      ws.once('open', () =>
        ws.send(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'auth.hello',
            params: { token: TEST_TOKEN, protocolVersion: PROTOCOL_VERSION },
          }),
        ),
      );
      ws.once('message', (data) => {
        const answer = JSON.parse(String(data)) as { result?: { serverVersion: string } };
        resolve({ status: 101, serverVersion: answer.result?.serverVersion });
        ws.close();
      });
    });
  }

  it('RPC-2 the /rpc upgrade works with 60 cookies of 3.9 KB and with 180 cookies of 4 KiB', async () => {
    for (const cookie of [STUFFED, CHROMIUM_MAXIMUM]) {
      const outcome = await helloWithCookies(cookie);
      expect(outcome.status, `${cookie.length} bytes of cookies`).toBe(101);
      expect(outcome.serverVersion).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });

  it('SEC-8 every answer to a request that carries cookies clears them; answers without cookies do not', async () => {
    const previewHost = `p-${PREVIEW_ID}.hbcode.localhost:${runtime.port}`;
    const requests = [
      { path: '/', host: runtime.appHost },
      { path: '/pair', host: runtime.appHost },
      { path: '/healthz', host: runtime.appHost },
      { path: '/no-such-page', host: runtime.appHost },
      { path: '/', host: `localhost:${runtime.port}` },
      // ORG-5: the app origin for browsers that cannot resolve *.localhost.
      { path: '/', host: `127.0.0.1:${runtime.port}` },
      { path: '/.hbcode/host.html', host: previewHost },
      { path: '/anything', host: previewHost },
    ];
    for (const { path, host } of requests) {
      const withCookies = await httpGet(runtime.port, path, host, 'GET', { cookie: STUFFED });
      expect(withCookies.status, `${host}${path}`).toBeLessThan(500);
      expect(withCookies.headers['clear-site-data'], `${host}${path}`).toBe('"cookies"');
      const without = await httpGet(runtime.port, path, host);
      expect(without.headers['clear-site-data'], `${host}${path}`).toBeUndefined();
    }
  });

  it('SEC-8 a refused /rpc upgrade that carries cookies clears them', async () => {
    const answer = await rawExchange(
      `GET /rpc HTTP/1.1\r\nHost: ${runtime.appHost}\r\nOrigin: http://evil.example\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nCookie: a=1\r\n\r\n`,
    );
    expect(answer.text).toMatch(/^HTTP\/1\.1 403 /);
    expect(answer.text.toLowerCase()).toContain('clear-site-data: "cookies"');
    expect(answer.closed).toBe(true);
  });

  it('SEC-8 a request head over the limit is answered 431 with the cookies cleared, and closed', async () => {
    const answer = await rawExchange(
      `GET / HTTP/1.1\r\nHost: ${runtime.appHost}\r\nCookie: ${cookieHeader(300, 4_096)}\r\n\r\n`,
    );
    expect(answer.text).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer.text.toLowerCase()).toContain('clear-site-data: "cookies"');
    expect(answer.closed).toBe(true);
  });

  /** Sends raw bytes and collects the answer until the runtime lets go of the connection (the client never closes first). */
  async function rawExchange(request: string): Promise<{ text: string; closed: boolean }> {
    const socket = new HalfOpenSocket(runtime.port);
    try {
      await socket.connected;
      socket.write(request);
      await waitUntil(() => socket.closed, 'the runtime closes the connection', 15_000).catch(() => {});
      return { text: socket.answer, closed: socket.closed };
    } finally {
      socket.destroy();
    }
  }
});
