import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeLinkFrame, LINK_FRAME } from '../../../lib/relay/relayWire';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import {
  connectStream,
  linkDesktop,
  makeDesktopKeys,
  type StreamClient,
  type TestDesktop,
} from '../../fixtures/relayClients';
import { startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-1, RLY-4: whatever a desktop, a client or another NATS client sends, the node refuses what
// is wrong, counts it, stays up, and the connection's other traffic goes on.
let nats: NatsServer;
let nodes: RelayNodeHandle[];
let spoofer: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  nodes = await startRelayNodes({ natsUrl: nats.url, count: 2 });
  spoofer = await connect({ servers: nats.url });
}, 120_000);

afterAll(async () => {
  await spoofer?.close();
  for (const node of nodes ?? []) await node.stop();
  await nats?.stop();
});

/** The client's bytes, sent after the bad input, still arrive, and the desktop's come back: the connection goes on. */
async function stillRoutes(
  desktop: TestDesktop,
  client: StreamClient,
  connectionId: string,
  marker: string,
): Promise<void> {
  client.write(Buffer.from(marker));
  await waitUntil(
    () => desktop.bytesFor(connectionId).toString('latin1').endsWith(marker),
    `“${marker}” reaches the desktop`,
  );
  desktop.send({ type: LINK_FRAME.data, connectionId, payload: Buffer.from(`${marker}-back`) });
  await waitUntil(
    () => client.received.toString('latin1').endsWith(`${marker}-back`),
    `“${marker}-back” reaches the client`,
  );
}

const refusals = (node: RelayNodeHandle) => node.stats()!.refusals;

describe('RLY-4 bad input at a relay node', () => {
  it('RLY-4 drops malformed link frames and frames for another desktop’s connection; that connection is unaffected', async () => {
    const alice = await linkDesktop(nodes[0]!);
    const mallory = await linkDesktop(nodes[0]!);
    const { client, connectionId } = await connectStream(nodes[1]!, alice);
    for (const junk of [
      Buffer.from([]),
      Buffer.from([9, 0]),
      Buffer.from([2, 200, 1]),
      Buffer.from([2, 3, 0x61, 0x2e, 0x31]),
    ])
      mallory.socket.ws.send(junk);
    mallory.socket.ws.send('text on a link');
    // Mallory addresses Alice's connection: DATA, ACK and CLOSE are all dropped.
    mallory.send({ type: LINK_FRAME.data, connectionId, payload: Buffer.from('injected') });
    mallory.send({ type: LINK_FRAME.ack, connectionId, bytes: 1000 });
    mallory.send({ type: LINK_FRAME.close, connectionId, code: 1000, reason: 'hijack' });
    await waitUntil(() => refusals(nodes[0]!).foreign_connection === 3, 'the three foreign frames are counted');
    expect(refusals(nodes[0]!).malformed_link_frame).toBe(5);
    await stillRoutes(alice, client, connectionId, 'after-foreign');
    expect(client.received.toString('latin1')).not.toContain('injected');
    expect(client.closedNow).toBe(false);
    expect(mallory.socket.isOpen).toBe(true);
    alice.socket.ws.close();
    mallory.socket.ws.close();
  }, 60_000);

  it('RLY-4 drops NATS messages that name another desktop or come from another node than the desktop’s', async () => {
    const desktop = await linkDesktop(nodes[0]!);
    const { client, connectionId } = await connectStream(nodes[1]!, desktop);
    const spoof = (desktopId: string, from: string) => {
      const h = headers();
      h.set('hbr-k', 'frame');
      h.set('hbr-from', from);
      h.set('hbr-desk', desktopId);
      spoofer.publish(
        'hbr.node.node2',
        encodeLinkFrame({ type: LINK_FRAME.close, connectionId, code: 1000, reason: 'spoofed' }),
        { headers: h },
      );
    };
    spoof(makeDesktopKeys().desktopId, 'node1');
    spoof(desktop.desktopId, 'intruder');
    spoofer.publish('hbr.node.node2', Buffer.from('no headers'));
    await waitUntil(
      () =>
        refusals(nodes[1]!).foreign_desktop === 1 &&
        refusals(nodes[1]!).foreign_node === 1 &&
        refusals(nodes[1]!).malformed_nats_message === 1,
      'the spoofed messages are counted',
    );
    await stillRoutes(desktop, client, connectionId, 'after-spoof');
    desktop.socket.ws.close();
  }, 60_000);

  it('RLY-1 logs carry ids, sizes and codes, no payload', () => {
    for (const node of nodes) expect(node.output()).not.toMatch(/injected|spoofed|hijack|after-/);
    expect(nodes[0]!.output()).toMatch(/foreign_connection/);
  });
});
