import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { connectDevice, linkDesktop, type RelayAddress } from '../../fixtures/relayClients';
import { startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { httpGet } from '../../fixtures/runtimeProcess';
import { startTcpBalancer, type TcpBalancer } from '../../fixtures/tcpBalancer';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-4: nodes are stateless behind any balancer; when the device's node dies, the device
// reconnects through the balancer to another node and reaches its desktop again.
let nats: NatsServer;
let balancer: TcpBalancer;
let nodes: RelayNodeHandle[];

beforeAll(async () => {
  nats = await startNatsServer();
  balancer = await startTcpBalancer();
  // node2 is a child process so it can die by SIGKILL; both serve the balancer's public URL.
  nodes = await startRelayNodes({ natsUrl: nats.url, count: 2, publicPort: balancer.port, childProcess: (i) => i === 1 });
  balancer.setBackends([nodes[1]!.port, nodes[0]!.port]);
}, 120_000);

afterAll(async () => {
  await balancer?.close();
  for (const node of nodes ?? []) await node.stop();
  await nats?.stop();
});

describe('relay nodes behind a load balancer', () => {
  it('a device whose node was killed reconnects through the balancer to another node', async () => {
    const viaBalancer: RelayAddress = { port: balancer.port, host: nodes[0]!.host, publicUrl: nodes[0]!.publicUrl };
    expect((await httpGet(balancer.port, '/healthz', viaBalancer.host)).status).toBe(200);
    // The desktop links to node1 directly; the device comes in through the balancer, first to node2.
    const desktop = await linkDesktop({ port: nodes[0]!.port, host: nodes[0]!.host, publicUrl: nodes[0]!.publicUrl });
    const first = await connectDevice(viaBalancer, desktop);
    expect(first.connectionId.startsWith('node2.')).toBe(true);
    await nodes[1]!.kill();
    await first.device.closed;
    const second = await connectDevice(viaBalancer, desktop);
    expect(second.connectionId.startsWith('node1.')).toBe(true);
    second.device.ws.send(Buffer.from('again'));
    await waitUntil(() => desktop.dataFor(second.connectionId).length === 1, 'the reconnected device reaches its desktop');
    expect(balancer.routed.slice(-1)).toEqual([nodes[0]!.port]);
    desktop.socket.ws.close();
  }, 90_000);
});
