import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { startSharedPreviewRuntime } from '../../fixtures/sharedPreviewRuntime';
import { writeSite } from '../../fixtures/previewSite';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { httpGet, startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

const newId = () => crypto.randomBytes(16).toString('hex');

describe('ORG-4 PRV-5 what a preview origin serves', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let previewHost: string;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    writeSite(dirs.projectDirs[0]!);
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    previewHost = `p-${newId()}.hbcode.localhost:${runtime.port}`;
  });
  afterAll(async () => {
    await runtime?.stop();
    dirs?.remove();
  });

  it('PRV-5 the host page: a strict CSP that only the app may frame, no store, no cookie', async () => {
    const res = await httpGet(runtime.port, '/.hbcode/host.html', previewHost);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['set-cookie']).toBeUndefined();
    const csp = res.headers['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(csp).toContain(`frame-ancestors ${runtime.appOrigin}`);
    expect(csp).toContain("frame-src 'self'");
    expect(res.body).toContain(`data-app-origin="${runtime.appOrigin}"`);
  });

  it('PRV-5 the worker script may control the whole preview origin', async () => {
    const res = await httpGet(runtime.port, '/.hbcode/sw.js', previewHost);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['service-worker-allowed']).toBe('/');
  });

  it('ORG-4 everything else on a preview origin is 404 (files too), other methods 405', async () => {
    for (const path of [
      '/',
      '/index.html',
      '/js/main.js',
      '/sw.js',
      '/rpc',
      '/healthz',
      '/.preview-host.js',
      '/_next/x',
      '/.hbcode/other',
    ]) {
      const res = await httpGet(runtime.port, path, previewHost);
      expect(res.status, path).toBe(404);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    expect((await httpGet(runtime.port, '/.hbcode/host.html', previewHost, 'POST')).status).toBe(405);
  });

  it('ORG-4 the app origin frames only preview origins and never serves the host page or its script', async () => {
    const app = await httpGet(runtime.port, '/', runtime.appHost);
    expect(app.headers['content-security-policy']).toContain(`frame-src http://*.hbcode.localhost:${runtime.port}`);
    for (const path of ['/.hbcode/host.html', '/.hbcode/sw.js', '/.preview-host.js']) {
      expect((await httpGet(runtime.port, path, runtime.appHost)).status, path).toBe(404);
    }
  });
});

describe('ORG-3 one shared preview origin (--public-url with --preview-origin)', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let port: number;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    ({ runtime, port } = await startSharedPreviewRuntime(dirs));
    client = await runtime.connect();
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  it('ORG-3 preview.open answers the shared origin, a path prefix per preview, and says it is shared', async () => {
    const previewId = newId();
    const opened = await client.call('preview.open', {
      previewId,
      projectDirectory: dirs.projectDirs[0]!,
      path: 'index.html',
    });
    const origin = `http://preview.hbcode.localhost:${port}`;
    expect(opened).toMatchObject({
      origin,
      sharedOrigin: true,
      pathPrefix: `/p-${previewId}/`,
      documentPath: `/p-${previewId}/index.html`,
      url: `${origin}/p-${previewId}/index.html`,
      hostUrl: `${origin}/.hbcode/host.html?id=${previewId}`,
    });
    const host = `preview.hbcode.localhost:${port}`;
    expect((await httpGet(port, '/.hbcode/host.html', host)).status).toBe(200);
    expect((await httpGet(port, `/p-${previewId}/index.html`, host)).status).toBe(404);
    const app = await httpGet(port, '/', runtime.appHost);
    expect(app.headers['content-security-policy']).toContain(`frame-src ${origin}`);
  });
});
