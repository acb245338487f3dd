import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_CLOSE_CODES } from '../../../lib/relay/relayWire';
import { parseCli } from '../../../server/cli';
import { silentLogger, type Logger } from '../../../server/runtime/log';
import { startRuntime, type RunningRuntime } from '../../../server/startRuntime';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { openDevice, type RecordingSocket } from '../../fixtures/relayClients';
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
  let running: RunningRuntime;
  const warnings: string[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    balancer = await startTcpBalancer([]);
    nodes = await startRelayNodes({ natsUrl: nats.url, count: 2, publicPort: balancer.port, options: { linkPingMs: PING_MS } });
    // The desktop's link goes through the balancer to node 1; devices connect to the nodes directly.
    balancer.setBackends([nodes[0]!.port]);
    dirs = makeRuntimeDirs();
    const log: Logger = { ...silentLogger, warn: (message) => warnings.push(message) };
    const env = { HBCODE_RELAY_PING_MS: String(PING_MS) };
    running = await startRuntime(parseCli(['--port', '0', '--data-dir', dirs.dataDir, '--relay', `http://relay.localhost:${balancer.port}`, ...dirs.projectDirs], env), log);
    await waitUntil(() => running.relay!.linked, () => `the runtime links to the relay: ${warnings.join('; ')} / ${nodes[0]!.output()}`, 20_000);
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
    for (const node of nodes ?? []) await node.stop();
    await balancer?.close();
    await nats?.stop();
    dirs?.remove();
  });

  /** A device socket the desktop accepted (its node has the desktop's answer to the OPEN). */
  async function acceptedDevice(node: RelayNodeHandle): Promise<RecordingSocket> {
    const device = openDevice(node, running.relay!.desktopId);
    await device.opened;
    await waitUntil(() => node.stats()!.deviceConnections > 0 && node.stats()!.unroutedDevices === 0, 'the desktop accepts the device');
    return device;
  }

  it('RLY-4 the node drops the link and tells every device on any node 4502 at once; the runtime gives up on it and links again', async () => {
    const local = await acceptedDevice(nodes[0]!);
    const remote = await acceptedDevice(nodes[1]!);
    expect(nodes[0]!.stats()!.desktopLinks).toBe(1);

    balancer.stall();
    await waitUntil(() => nodes[0]!.stats()!.desktopLinks === 0, 'the node drops the silent link', NOTICED_WITHIN_MS);
    // Told at once: the node's drop sends each device's node a CLOSE, no timeout on the way.
    const closes = await Promise.all([local.closed, remote.closed]);
    expect(closes.map((c) => c.code)).toEqual([RELAY_CLOSE_CODES.desktopGone, RELAY_CLOSE_CODES.desktopGone]);
    expect(nodes[0]!.output()).toMatch(/desktop link silent/);

    await waitUntil(() => warnings.some((w) => /answers no pings/.test(w)), 'the runtime gives up on the silent link', NOTICED_WITHIN_MS);

    // The balancer forwards new connections: the runtime links again and serves devices.
    await waitUntil(() => running.relay!.linked && nodes[0]!.stats()!.desktopLinks === 1, 'the runtime links again', 60_000);
    const again = await acceptedDevice(nodes[1]!);
    expect(again.isOpen).toBe(true);
    again.ws.close();
  }, 120_000);
});
