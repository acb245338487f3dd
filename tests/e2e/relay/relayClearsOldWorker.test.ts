// RLY-1 in Chromium: a phone that used the retired relay-served app still has that app's service
// worker, its caches and its IndexedDB on the relay's own origin. The relay now serves no app;
// its answers carry `Clear-Site-Data: "cache", "storage"`, and this shows that a real upgraded
// phone loses all of it. First the retired relay is played by a server on the relay's host and
// port that serves the app as the old relay did (the app's files and its worker, from out/); the
// browser installs the worker and stores data. Then a real relay node starts on that port and
// the phone opens the relay's address again, as from its home screen.
import http from 'node:http';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../server/runtime/paths';
import { AppStatic } from '../../../server/http/appStatic';
import { createHttpServer } from '../../../server/http/httpServer';
import { DEFAULT_HTTP_LIMITS } from '../../../lib/nodeHttp/httpLimits';
import { launchChromium } from '../../fixtures/browser';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { startRelayChild, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { freePort } from '../../fixtures/runtimeProcess';
import { waitUntil } from '../../fixtures/waitUntil';

/** Bounds of this file's waits, in one place. */
const TIMEOUTS = { test: 120_000, worker: 30_000, cleared: 30_000 };
const STORED_MARKER = 'old-relay-app-data-6TQE';

interface OriginState {
  registrations: number;
  controlled: boolean;
  caches: string[];
  databases: string[];
  local: string | null;
}

/** What the relay's origin holds, read from a page of that origin that is not sandboxed. */
function readOriginState(page: Page): Promise<OriginState> {
  return page.evaluate(
    async (key) => ({
      registrations: (await navigator.serviceWorker.getRegistrations()).length,
      controlled: navigator.serviceWorker.controller !== null,
      caches: await caches.keys(),
      databases: (await indexedDB.databases()).map((db) => db.name ?? ''),
      local: localStorage.getItem(key),
    }),
    STORED_MARKER,
  );
}

/** The retired relay as far as a browser saw it: the app and its worker, served on the relay's origin. */
async function startRetiredRelay(port: number, relayOrigin: string): Promise<http.Server> {
  const server = createHttpServer({
    origins: {
      app: new URL(relayOrigin),
      port,
      previews: { kind: 'shared', origin: `http://p.relay.localhost:${port}` },
    },
    app: new AppStatic(path.join(REPO_ROOT, 'out')),
    ready: () => true,
    limits: DEFAULT_HTTP_LIMITS,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A page of the relay's origin with no worker of its own: what the origin holds can be read from it. */
async function startProbe(port: number): Promise<http.Server> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end('<!doctype html><title>probe</title><p>probe</p>');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

describe('RLY-1 the relay’s page clears a retired relay-served app from a phone', () => {
  let nats: NatsServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let port: number;
  let relayOrigin: string;
  let node: RelayNodeHandle | null = null;

  beforeAll(async () => {
    nats = await startNatsServer();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await context.newPage();
    port = await freePort();
    relayOrigin = `http://relay.localhost:${port}`;
  }, TIMEOUTS.test);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await node?.stop();
    await nats?.stop();
  });

  it(
    'drops the old worker, its caches and stored data, and shows a page that runs no script',
    async () => {
      // 1. The old relay: the app installs its worker; the phone stores data on the origin.
      const retired = await startRetiredRelay(port, relayOrigin);
      try {
        await page.goto(`${relayOrigin}/`);
        await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
        await page.reload();
        await waitUntil(
          () => page.evaluate(() => navigator.serviceWorker.controller !== null),
          'the retired app’s worker controls the page',
          TIMEOUTS.worker,
        );
        await page.evaluate(async (key) => {
          localStorage.setItem(key, key);
          const cache = await caches.open(key);
          await cache.put('/kept', new Response(key));
          await new Promise<void>((resolve, reject) => {
            const open = indexedDB.open(key, 1);
            open.onupgradeneeded = () => open.result.createObjectStore('pairing').put(key, 'device');
            open.onsuccess = () => {
              open.result.close();
              resolve();
            };
            open.onerror = () => reject(open.error);
          });
        }, STORED_MARKER);
        const before = await readOriginState(page);
        expect(before).toMatchObject({ registrations: 1, controlled: true, local: STORED_MARKER });
        expect(before.caches).toContain(STORED_MARKER);
        expect(before.caches.length).toBeGreaterThan(1);
        expect(before.databases).toContain(STORED_MARKER);
      } finally {
        await close(retired);
      }

      // 2. The real relay on the same host and port; the phone opens the relay's address again.
      node = await startRelayChild(nats.url, 'node1', port, [], port);
      // The old worker may still answer this navigation from its cache. Its update check fetches
      // /sw.js from the relay, whose answer clears the origin; the next visit gets the relay's own
      // page. Chromium checks after navigations but not always at once, so the test asks for the
      // same check with registration.update() (the same network fetch of the worker's script).
      const shown = await waitUntil(
        async () => {
          const response = await page.goto(`${relayOrigin}/`);
          if (response && !response.fromServiceWorker() && response.status() === 200) return response;
          await page.evaluate(() =>
            navigator.serviceWorker
              .getRegistration()
              .then((registration) => registration?.update().catch(() => undefined)),
          );
          return null;
        },
        'the relay’s own page is shown, not one from the old worker',
        { timeoutMs: TIMEOUTS.cleared, intervalMs: 500, retryErrors: true },
      );
      expect(await shown.headerValue('clear-site-data')).toBe('"cache", "storage"');
      expect(await shown.headerValue('content-security-policy')).toContain('sandbox');
      await expect.poll(() => page.title()).toBe('HB Code relay');
      // The page runs no script: it has none, and its policy (default-src 'none', sandbox) runs none.
      expect(await page.locator('script').count()).toBe(0);
      expect(await page.evaluate(() => window.origin)).toBe('null');
      await node.stop();
      node = null;

      // 3. What the origin holds now, read from a plain page of the same origin.
      const probe = await startProbe(port);
      try {
        const probed = await page.goto(`${relayOrigin}/probe`);
        expect(probed?.fromServiceWorker()).toBe(false);
        const after = await readOriginState(page);
        expect(after).toEqual({ registrations: 0, controlled: false, caches: [], databases: [], local: null });
      } finally {
        await close(probe);
      }
    },
    TIMEOUTS.test,
  );
});
