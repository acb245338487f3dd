import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { connectStream, linkDesktop, type RelayAddress } from '../../fixtures/relayClients';
import { startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { startTcpBalancer, type TcpBalancer } from '../../fixtures/tcpBalancer';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-4: nodes are stateless behind any balancer; when the client's node dies, the client
// reconnects through the balancer to another node's TLS port and reaches its desktop again.
let nats: NatsServer;
let balancer: TcpBalancer;
let nodes: RelayNodeHandle[];

beforeAll(async () => {
  nats = await startNatsServer();
  balancer = await startTcpBalancer();
  // node2 is a child process so it can die by SIGKILL; the balancer fronts their TLS ports.
  nodes = await startRelayNodes({ natsUrl: nats.url, count: 2, childProcess: (i) => i === 1 });
  balancer.setBackends([nodes[1]!.tlsPort!, nodes[0]!.tlsPort!]);
}, 120_000);

afterAll(async () => {
  await balancer?.close();
  for (const node of nodes ?? []) await node.stop();
  await nats?.stop();
});

describe('RLY-4 relay nodes behind a load balancer', () => {
  it('RLY-4 a client whose node was killed reconnects through the balancer to another node', async () => {
    const viaBalancer: RelayAddress = {
      port: nodes[0]!.port,
      host: nodes[0]!.host,
      publicUrl: nodes[0]!.publicUrl,
      tlsPort: balancer.port,
    };
    // The desktop links to node1 directly; the client comes in through the balancer, first to node2.
    const desktop = await linkDesktop(nodes[0]!);
    const first = await connectStream(viaBalancer, desktop);
    expect(first.connectionId.startsWith('node2.')).toBe(true);
    await nodes[1]!.kill();
    await first.client.closed;
    const second = await connectStream(viaBalancer, desktop);
    expect(second.connectionId.startsWith('node1.')).toBe(true);
    second.client.write(Buffer.from('again'));
    await waitUntil(
      () => desktop.bytesFor(second.connectionId).subarray(second.client.hello.length).toString() === 'again',
      'the reconnected client reaches its desktop',
    );
    expect(balancer.routed.slice(-1)).toEqual([nodes[0]!.tlsPort!]);
    desktop.socket.ws.close();
  }, 90_000);
});
