import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_FRAME, RELAY_CLOSE_CODES, type LinkFrame } from '../../../lib/relay/relayWire';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { connectStream, linkDesktop } from '../../fixtures/relayClients';
import { startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-4: heartbeats on NATS tell a node that the other end's node died, without any goodbye.
let nats: NatsServer;
let nodes: RelayNodeHandle[];

beforeAll(async () => {
  nats = await startNatsServer();
  // node1 and node3 are child processes, so they can die by SIGKILL.
  nodes = await startRelayNodes({ natsUrl: nats.url, count: 3, childProcess: (i) => i !== 1 });
}, 180_000);

afterAll(async () => {
  for (const node of nodes ?? []) await node.stop();
  await nats?.stop();
});

describe('RLY-4 a relay node dies', () => {
  it('RLY-4 closes a client when its desktop’s node is killed', async () => {
    const desktop = await linkDesktop(nodes[0]!);
    const { client, connectionId } = await connectStream(nodes[1]!, desktop);
    client.write(Buffer.from([1, 2, 3]));
    await waitUntil(
      () => desktop.bytesFor(connectionId).length === client.hello.length + 3,
      'the client’s bytes reach the desktop',
    );
    await nodes[0]!.kill();
    // The bound: heartbeats every second, silence of 3.5 s is death; the wait is generous for a busy machine.
    await waitUntil(() => client.closedNow, 'the client is closed', 20_000);
    expect(nodes[1]!.stats()!.passthroughConnections).toBe(0);
    expect(nodes[1]!.output()).toMatch(/desktop node went silent/);
  }, 60_000);

  it('RLY-4 tells the desktop its connection is gone when the client’s node is killed', async () => {
    const desktop = await linkDesktop(nodes[1]!);
    const { connectionId } = await connectStream(nodes[2]!, desktop);
    await nodes[2]!.kill();
    const close = await desktop.waitFor(
      (f: LinkFrame): f is Extract<LinkFrame, { type: 3 }> =>
        f.type === LINK_FRAME.close && f.connectionId === connectionId,
      'a CLOSE for the dead node’s connection',
      20_000,
    );
    expect(close.code).toBe(RELAY_CLOSE_CODES.goingAway);
    expect(desktop.socket.isOpen).toBe(true);
    desktop.socket.ws.close();
  }, 60_000);
});
