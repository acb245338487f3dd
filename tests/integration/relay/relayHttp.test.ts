import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW_HOST_PAGE_PATH, PREVIEW_WORKER_PATH } from '../../../lib/protocol/previewBridge';
import { RELAY_CLOSE_CODES, RELAY_DESKTOP_PATH } from '../../../lib/relay/relayWire';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { linkDesktop, makeDesktopKeys, openDevice, openRelaySocket, type RecordingSocket } from '../../fixtures/relayClients';
import { startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { httpGet } from '../../fixtures/runtimeProcess';
import { servedByRelay } from '../../../lib/client/relay/servedByRelay';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-1: the relay serves the app (the pairing link opens it) and the preview origins' host page
// and worker, with no API of its own; RLY-4: connection attempts are rate-limited per address.
let nats: NatsServer;
let node: RelayNodeHandle;
let outDir: string;
const BURST = 6;

beforeAll(async () => {
  outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-relay-out-'));
  fs.writeFileSync(path.join(outDir, 'index.html'), '<!doctype html><title>app</title>');
  fs.writeFileSync(path.join(outDir, 'pair.html'), '<!doctype html><title>pair screen</title>');
  fs.writeFileSync(path.join(outDir, '404.html'), '<!doctype html><title>missing</title>');
  fs.writeFileSync(path.join(outDir, 'sw.js'), 'self.addEventListener("fetch", () => {});');
  fs.writeFileSync(path.join(outDir, '.preview-host.js'), 'console.log("host");');
  nats = await startNatsServer();
  node = (await startRelayNodes({ natsUrl: nats.url, count: 1, options: { outDir, connectRate: { burst: BURST, periodMs: 3_600_000 } } }))[0]!;
}, 120_000);

afterAll(async () => {
  await node?.stop();
  await nats?.stop();
  fs.rmSync(outDir, { recursive: true, force: true });
});

describe('the relay’s HTTP side', () => {
  it('serves /healthz, the app, /pair (the pairing link’s page) and the preview host page and worker; no /rpc', async () => {
    // RLY-1: the page tells a relay from a desktop by this answer (lib/client/relay/servedByRelay.ts).
    expect((await httpGet(node.port, '/healthz', node.host)).body).toBe('{"ok":true,"relay":true}');
    const askNode = () => httpGet(node.port, '/healthz', node.host).then((answer) => ({ json: async () => JSON.parse(answer.body) as unknown }));
    expect(await servedByRelay({ protocol: 'http:', host: node.host }, askNode)).toBe(true);
    const app = await httpGet(node.port, '/', node.host);
    expect(app.body).toContain('<title>app</title>');
    expect(app.headers['content-security-policy']).toContain(`frame-src http://*.${node.host}`);
    expect((await httpGet(node.port, '/pair', node.host)).body).toContain('pair screen');
    const previewHost = `p-${'a'.repeat(32)}.${node.host}`;
    const hostPage = await httpGet(node.port, PREVIEW_HOST_PAGE_PATH, previewHost);
    expect(hostPage.status).toBe(200);
    expect(hostPage.body).toContain('console.log("host")');
    expect((await httpGet(node.port, PREVIEW_WORKER_PATH, previewHost)).body).toContain('addEventListener');
    expect((await httpGet(node.port, '/', previewHost)).status).toBe(404);
    expect((await httpGet(node.port, '/', 'elsewhere.localhost')).status).toBe(421);
    const rpc = openRelaySocket(node, '/rpc');
    await expect(rpc.opened).rejects.toThrow(/404/);
  });

  it('refuses the attempt past the burst from one address (4429), on both endpoints', async () => {
    // The desktop's link is the first attempt of the burst (/rpc is no relay endpoint and took none).
    const desktop = await linkDesktop(node);
    const attempts: RecordingSocket[] = [];
    for (let i = 0; i < BURST; i++) attempts.push(openDevice(node, makeDesktopKeys().desktopId));
    const closes = await Promise.all(attempts.map((a) => a.closed));
    expect(closes.map((c) => c.code)).toEqual([...Array(BURST - 1).fill(RELAY_CLOSE_CODES.desktopOffline), RELAY_CLOSE_CODES.rateLimited]);
    const link = openRelaySocket(node, RELAY_DESKTOP_PATH, null);
    expect((await link.closed).code).toBe(RELAY_CLOSE_CODES.rateLimited);
    expect(node.stats()!.refusals.rate_limited).toBe(2);
    // Those refused hold nothing; the linked desktop is unaffected.
    await waitUntil(() => node.stats()!.deviceConnections === 0, 'no device connection is left');
    expect(desktop.socket.isOpen).toBe(true);
    desktop.socket.ws.close();
  }, 60_000);

  it('closes sockets past the node’s connection cap 1013', async () => {
    const [small] = await startRelayNodes({ natsUrl: nats.url, count: 1, options: { outDir, nodeId: 'small', maxConnections: 2 } });
    try {
      const desktop = await linkDesktop(small!);
      const first = openDevice(small!, desktop.desktopId);
      await first.opened;
      const third = openDevice(small!, desktop.desktopId);
      expect((await third.closed).code).toBe(RELAY_CLOSE_CODES.tryAgainLater);
      expect(small!.stats()!.refusals.node_full).toBe(1);
      expect(first.isOpen).toBe(true);
    } finally {
      await small!.stop();
    }
  }, 60_000);

  it('behind a proxy, limits each client address the proxy names, not the proxy’s own', async () => {
    const [proxied] = await startRelayNodes({ natsUrl: nats.url, count: 1, options: { outDir, nodeId: 'proxied', clientAddressHeader: 'x-forwarded-for', connectRate: { burst: 2, periodMs: 3_600_000 } } });
    try {
      const from = (address: string) => openDevice(proxied!, makeDesktopKeys().desktopId, undefined, { 'x-forwarded-for': `203.0.113.9, ${address}` });
      const codes = [];
      for (const address of ['10.0.0.1', '10.0.0.1', '10.0.0.1', '10.0.0.2']) codes.push((await from(address).closed).code);
      expect(codes).toEqual([RELAY_CLOSE_CODES.desktopOffline, RELAY_CLOSE_CODES.desktopOffline, RELAY_CLOSE_CODES.rateLimited, RELAY_CLOSE_CODES.desktopOffline]);
    } finally {
      await proxied!.stop();
    }
  }, 60_000);
});
