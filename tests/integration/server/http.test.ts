import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tryUpgrade } from '../../fixtures/rawSocket';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { httpGet, startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

const PREVIEW_ID = '0123456789abcdef0123456789abcdef';

describe('HTTP routing by Host and the /rpc upgrade (ORG-1, ORG-4, RPC-2, RPC-5)', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let previewHost: string;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    previewHost = `p-${PREVIEW_ID}.hbcode.localhost:${runtime.port}`;
  });
  afterAll(async () => {
    await runtime?.stop();
    dirs?.remove();
  });

  it('RPC-2 the /rpc upgrade with the app Host and the app Origin opens', async () => {
    expect(await tryUpgrade(runtime)).toEqual({ opened: true, status: 101 });
  });

  it('RPC-2 the /rpc upgrade from a foreign Origin, a preview origin or with no Origin is refused with 403 and never opens', async () => {
    const origins: (string | null)[] = [
      'http://evil.example',
      `http://evil.example:${runtime.port}`,
      `http://${previewHost}`,
      `http://localhost:${runtime.port}`,
      `http://127.0.0.1:${runtime.port}`,
      `https://hbcode.localhost:${runtime.port}`,
      `http://hbcode.localhost:${runtime.port + 1}`,
      `http://hbcode.localhost.evil.example:${runtime.port}`,
      // A sandboxed frame's opaque origin.
      'null',
      null,
    ];
    for (const origin of origins) {
      expect(await tryUpgrade(runtime, { origin }), String(origin)).toEqual({ opened: false, status: 403 });
    }
  });

  it('ORG-4 the /rpc upgrade on any host but the app host, or on another path, is refused', async () => {
    const refused = [
      { host: `localhost:${runtime.port}` },
      { host: previewHost },
      { host: `evil.example:${runtime.port}` },
      { path: '/rpc/' },
      { path: '/' },
      { path: '/healthz' },
    ];
    for (const options of refused) {
      const outcome = await tryUpgrade(runtime, options);
      expect(outcome.opened, JSON.stringify(options)).toBe(false);
      expect(outcome.status, JSON.stringify(options)).toBe(404);
    }
    expect(await tryUpgrade(runtime, { path: '/rpc?client=test' })).toEqual({ opened: true, status: 101 });
  });

  it('RPC-5 GET /healthz answers 200 when ready, on the app host and on loopback names', async () => {
    for (const host of [runtime.appHost, `localhost:${runtime.port}`, `127.0.0.1:${runtime.port}`]) {
      const res = await httpGet(runtime.port, '/healthz', host);
      expect(res.status, host).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ ok: true });
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('ORG-5 http://localhost:PORT/… answers a page that probes the app name and otherwise leads to 127.0.0.1, keeping the path', async () => {
    for (const host of [`localhost:${runtime.port}`, `LOCALHOST:${runtime.port}`, `[::1]:${runtime.port}`]) {
      const res = await httpGet(runtime.port, '/sessions/abc?tab=output&x=1', host);
      expect(res.status, host).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain(`<meta name="hbcode-app" content="${runtime.appOrigin}">`);
      expect(res.body).toContain(`<meta name="hbcode-fallback" content="http://127.0.0.1:${runtime.port}">`);
      expect(res.headers['content-security-policy']).toContain(`connect-src ${runtime.appOrigin}`);
      const script = /<script src="([^"]+)">/.exec(res.body)?.[1];
      const served = await httpGet(runtime.port, script!, host);
      expect(served.status).toBe(200);
      expect(served.headers['content-type']).toMatch(/^text\/javascript/);
      expect(served.body).toContain('location.replace');
    }
    expect((await httpGet(runtime.port, '/', `localhost:${runtime.port}`, 'POST')).status).toBe(405);
  });

  it('ORG-5 http://127.0.0.1:PORT is an app origin of its own: the app shell, framing only 127.0.0.1, and /rpc with its own Origin', async () => {
    const fallbackHost = `127.0.0.1:${runtime.port}`;
    const res = await httpGet(runtime.port, '/', fallbackHost);
    expect(res.status).toBe(200);
    expect(res.body).toContain('HB Code');
    expect(res.headers['content-security-policy']).toContain('frame-src http://127.0.0.1:*');
    expect(await tryUpgrade(runtime, { host: fallbackHost, origin: `http://${fallbackHost}` })).toEqual({
      opened: true,
      status: 101,
    });
    for (const origin of [runtime.appOrigin, `http://localhost:${runtime.port}`, null]) {
      expect(await tryUpgrade(runtime, { host: fallbackHost, origin }), String(origin)).toEqual({
        opened: false,
        status: 403,
      });
    }
  });

  it('ORG-1 the app origin serves the app shell without a token', async () => {
    const res = await httpGet(runtime.port, '/', runtime.appHost);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('HB Code');
  });

  it('ORG-4 an unknown Host header gets 421', async () => {
    const hosts = [
      `evil.example:${runtime.port}`,
      'evil.example',
      `hbcode.localhost:${runtime.port + 1}`,
      'hbcode.localhost',
      `www.hbcode.localhost:${runtime.port}`,
      `p-${PREVIEW_ID.slice(1)}.hbcode.localhost:${runtime.port}`,
      `hbcode.localhost.evil.example:${runtime.port}`,
    ];
    for (const host of hosts) {
      for (const path of ['/', '/healthz']) {
        const res = await httpGet(runtime.port, path, host);
        expect(res.status, `${host}${path}`).toBe(421);
        expect(res.body).not.toContain('HB Code runtime');
      }
    }
  });

  it('ORG-4 a preview origin never serves the app, the health check or the API', async () => {
    for (const path of ['/', '/healthz', '/rpc', '/index.html']) {
      const res = await httpGet(runtime.port, path, previewHost);
      expect(res.status, path).toBe(404);
      expect(res.body, path).not.toContain('HB Code runtime');
    }
  });
});
