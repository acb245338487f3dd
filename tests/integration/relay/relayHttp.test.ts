import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_CLOSE_CODES, RELAY_DESKTOP_PATH } from '../../../lib/relay/relayWire';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import {
  connectStream,
  linkDesktop,
  makeDesktopKeys,
  openRelaySocket,
  openStream,
  type RecordingSocket,
} from '../../fixtures/relayClients';
import { startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { httpGet } from '../../fixtures/runtimeProcess';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-1: the relay's own origin serves /healthz and one static page with no script, nothing the
// app trusts; no app, no service worker, no preview host page, no /rpc, no device socket.
// RLY-4: connection attempts are rate-limited per address and capped per node.
let nats: NatsServer;
let node: RelayNodeHandle;
const BURST = 6;

beforeAll(async () => {
  nats = await startNatsServer();
  node = (
    await startRelayNodes({
      natsUrl: nats.url,
      count: 1,
      options: { connectRate: { burst: BURST, periodMs: 3_600_000 } },
    })
  )[0]!;
}, 120_000);

afterAll(async () => {
  await node?.stop();
  await nats?.stop();
});

/** A desktop-link attempt is let in (its challenge comes) or refused (closed first). */
async function admitted(socket: RecordingSocket): Promise<boolean> {
  await waitUntil(() => socket.texts.length > 0 || socket.closeEvent, 'the node answers the link attempt');
  const answer = socket.texts.length > 0;
  socket.ws.close();
  return answer;
}

describe('RLY-1 the relay’s HTTP side', () => {
  it('RLY-1 serves /healthz and a script-free page under a strict policy for every path and host; nothing of the app, no /rpc, no device socket', async () => {
    expect((await httpGet(node.port, '/healthz', node.host)).body).toBe('{"ok":true,"relay":true}');
    const previewHost = `p-${'a'.repeat(32)}.${node.host}`;
    const desktopHost = `${'a'.repeat(32)}.${node.host}`;
    for (const [path, host, status] of [
      ['/', node.host, 200],
      ['/pair', node.host, 404],
      ['/sw.js', node.host, 404],
      ['/index.html', node.host, 404],
      ['/_next/static/chunks/main.js', node.host, 404],
      ['/.hbcode/host.html', previewHost, 404],
      ['/', desktopHost, 200],
    ] as const) {
      const answer = await httpGet(node.port, path, host);
      expect(answer.status, `${host}${path}`).toBe(status);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.headers['content-security-policy']).toBe(
        "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; sandbox",
      );
      expect(answer.headers['clear-site-data']).toBe('"cache", "storage"');
      expect(answer.body).toContain('open the pairing link your desktop shows');
      expect(answer.body).not.toMatch(/<script|<link|<img|<iframe|<form|<style|\son\w+=/i);
    }
    for (const path of ['/rpc', '/relay/device?desktop=' + makeDesktopKeys().desktopId]) {
      const socket = openRelaySocket(node, path);
      await expect(socket.opened).rejects.toThrow(/404/);
    }
  });

  it('RLY-4 refuses the attempt past the burst from one address, on the TLS port and the desktop endpoint (4429)', async () => {
    // The desktop's link is the first attempt of the burst.
    const desktop = await linkDesktop(node);
    const offline = makeDesktopKeys().desktopId;
    for (let i = 0; i < BURST - 1; i++) await (await openStream(node, offline)).closed;
    expect(node.stats()!.refusals.desktop_offline).toBe(BURST - 1);
    const refused = await openStream(node, desktop.desktopId);
    await refused.closed;
    const link = openRelaySocket(node, RELAY_DESKTOP_PATH, null);
    expect((await link.closed).code).toBe(RELAY_CLOSE_CODES.rateLimited);
    expect(node.stats()!.refusals.rate_limited).toBe(2);
    // Those refused hold nothing; the linked desktop is unaffected.
    expect(node.stats()!.passthroughConnections).toBe(0);
    expect(desktop.socket.isOpen).toBe(true);
    desktop.socket.ws.close();
  }, 60_000);

  it('RLY-4 closes connections past the node’s cap: a TLS client at once, a desktop link 1013', async () => {
    const [small] = await startRelayNodes({
      natsUrl: nats.url,
      count: 1,
      options: { nodeId: 'small', maxConnections: 2 },
    });
    try {
      const desktop = await linkDesktop(small!);
      const first = await connectStream(small!, desktop);
      const third = await openStream(small!, desktop.desktopId);
      await third.closed;
      const link = openRelaySocket(small!, RELAY_DESKTOP_PATH, null);
      expect((await link.closed).code).toBe(RELAY_CLOSE_CODES.tryAgainLater);
      expect(small!.stats()!.refusals.node_full).toBe(2);
      expect(first.client.closedNow).toBe(false);
    } finally {
      await small!.stop();
    }
  }, 60_000);

  it('RLY-4 behind a proxy, limits each desktop link by the client address the proxy names, not the proxy’s own', async () => {
    const [proxied] = await startRelayNodes({
      natsUrl: nats.url,
      count: 1,
      options: {
        nodeId: 'proxied',
        clientAddressHeader: 'x-forwarded-for',
        connectRate: { burst: 2, periodMs: 3_600_000 },
      },
    });
    try {
      const from = (address: string) =>
        openRelaySocket(proxied!, RELAY_DESKTOP_PATH, null, { 'x-forwarded-for': `203.0.113.9, ${address}` });
      const answers = [];
      for (const address of ['10.0.0.1', '10.0.0.1', '10.0.0.1', '10.0.0.2'])
        answers.push(await admitted(from(address)));
      expect(answers).toEqual([true, true, false, true]);
    } finally {
      await proxied!.stop();
    }
  }, 60_000);
});
