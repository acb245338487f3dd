import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCli } from '../../../server/cli';
import { loadOrCreateRelayIdentity } from '../../../server/relayLink/relayIdentity';
import { relayNamesFor } from '../../../server/relayLink/relayNameServer';
import { silentLogger, type Logger } from '../../../server/runtime/log';
import { startRuntime, type RunningRuntime } from '../../../server/startRuntime';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { makeTestCertificates, type TestCertificates } from '../../fixtures/relay/testCertificates';
import { openStream, type StreamClient } from '../../fixtures/relayClients';
import { startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startTcpBalancer, type TcpBalancer } from '../../fixtures/tcpBalancer';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-4: a desktop link whose path goes silent (no FIN, no RST) is noticed by pings on both ends.
/** Both ends ping this often (10 s by default); a link silent for an interval is dropped. */
const PING_MS = 1_000;
/** Two intervals are the bound; the rest is room for a busy machine. */
const NOTICED_WITHIN_MS = 10 * PING_MS;

describe('RLY-4 a desktop link that goes silent', () => {
  let nats: NatsServer;
  let balancer: TcpBalancer;
  let nodes: RelayNodeHandle[];
  let dirs: RuntimeDirs;
  let certs: TestCertificates;
  let running: RunningRuntime;
  const warnings: string[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    balancer = await startTcpBalancer([]);
    nodes = await startRelayNodes({
      natsUrl: nats.url,
      count: 2,
      publicPort: balancer.port,
      options: { linkPingMs: PING_MS },
    });
    // The desktop's link goes through the balancer to node 1; clients connect to the nodes' TLS ports directly.
    balancer.setBackends([nodes[0]!.port]);
    dirs = makeRuntimeDirs();
    const relayUrl = `http://relay.localhost:${balancer.port}`;
    const desktopId = (await loadOrCreateRelayIdentity(dirs.dataDir)).desktopId;
    certs = makeTestCertificates(relayNamesFor(new URL(relayUrl), desktopId, 443).serverNames);
    const log: Logger = { ...silentLogger, warn: (message) => warnings.push(message) };
    const env = { HBCODE_RELAY_PING_MS: String(PING_MS) };
    const args = [
      '--port',
      '0',
      '--data-dir',
      dirs.dataDir,
      '--relay',
      relayUrl,
      '--relay-cert',
      certs.certFile,
      '--relay-key',
      certs.keyFile,
    ];
    running = await startRuntime(parseCli([...args, ...dirs.projectDirs], env), log);
    await waitUntil(
      () => running.relay!.linked,
      () => `the runtime links to the relay: ${warnings.join('; ')} / ${nodes[0]!.output()}`,
      20_000,
    );
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
    for (const node of nodes ?? []) await node.stop();
    await balancer?.close();
    await nats?.stop();
    dirs?.remove();
    certs?.remove();
  });

  /** A TLS passthrough connection the desktop accepted (its node has the desktop's answer to the STREAM). */
  async function acceptedStream(node: RelayNodeHandle): Promise<StreamClient> {
    const client = await openStream(node, running.relay!.desktopId);
    await waitUntil(
      () => node.stats()!.passthroughConnections > 0 && node.stats()!.unroutedDevices === 0,
      'the desktop accepts the stream',
    );
    return client;
  }

  it('RLY-4 the node drops the link and closes every connection to that desktop on any node at once; the runtime gives up on it and links again', async () => {
    const local = await acceptedStream(nodes[0]!);
    const remote = await acceptedStream(nodes[1]!);
    expect(nodes[0]!.stats()!.desktopLinks).toBe(1);

    balancer.stall();
    await waitUntil(() => nodes[0]!.stats()!.desktopLinks === 0, 'the node drops the silent link', NOTICED_WITHIN_MS);
    // At once: the node's drop sends each client's node a CLOSE, no timeout on the way.
    await waitUntil(() => local.closedNow && remote.closedNow, 'both clients are closed', PING_MS);
    expect(nodes[0]!.output()).toMatch(/desktop link silent/);

    await waitUntil(
      () => warnings.some((w) => /answers no pings/.test(w)),
      'the runtime gives up on the silent link',
      NOTICED_WITHIN_MS,
    );

    // The balancer forwards new connections: the runtime links again and serves devices.
    await waitUntil(
      () => running.relay!.linked && nodes[0]!.stats()!.desktopLinks === 1,
      'the runtime links again',
      60_000,
    );
    const again = await acceptedStream(nodes[1]!);
    expect(again.closedNow).toBe(false);
    again.socket.destroy();
  }, 120_000);
});
