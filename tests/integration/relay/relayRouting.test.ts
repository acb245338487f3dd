import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_FRAME, RELAY_CLOSE_CODES, type LinkFrame } from '../../../lib/relay/relayWire';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { connectStream, linkDesktop, makeDesktopKeys, openStream } from '../../fixtures/relayClients';
import { startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-4, RLY-6: a desktop linked to node 1 and a TLS client on node 2 reach each other over NATS.
let nats: NatsServer;
let nodes: RelayNodeHandle[];

beforeAll(async () => {
  nats = await startNatsServer();
  // Both nodes run in this process, which also joins 32 MiB: a busy machine may hold its event loop
  // past the default 3.5 s of silence. Node death is relayNodeDeath.test.ts's; here a node is dead after 20 s.
  nodes = await startRelayNodes({
    natsUrl: nats.url,
    count: 2,
    options: { liveness: { heartbeatMs: 1_000, deadAfterMs: 20_000 } },
  });
}, 120_000);

afterAll(async () => {
  for (const node of nodes ?? []) await node.stop();
  await nats?.stop();
});

const isClose =
  (connectionId: string) =>
  (f: LinkFrame): f is Extract<LinkFrame, { type: 3 }> =>
    f.type === LINK_FRAME.close && f.connectionId === connectionId;
const MiB = 1024 * 1024;

describe('RLY-4 two relay nodes over NATS', () => {
  it('RLY-4 routes STREAM, DATA both ways byte-exact (32 MiB each way) and CLOSE both ways', async () => {
    const desktop = await linkDesktop(nodes[0]!);
    const { client, connectionId } = await connectStream(nodes[1]!, desktop);
    expect(connectionId.startsWith('node2.')).toBe(true);

    // client → desktop: the hello, then 32 MiB, split into DATA frames and NATS messages on the way.
    const up = crypto.randomBytes(32 * MiB);
    client.write(up);
    // The desktop ACKs what it took, as the runtime does, or the client's node stops reading at the window.
    let acked = client.hello.length;
    // Lengths only while waiting: joining 32 MiB on every poll would starve the nodes' heartbeats.
    const receivedLength = () => desktop.dataFor(connectionId).reduce((sum, payload) => sum + payload.length, 0);
    await waitUntil(
      () => {
        const got = receivedLength();
        if (got > acked) desktop.send({ type: LINK_FRAME.ack, connectionId, bytes: got - acked });
        acked = got;
        return got >= client.hello.length + up.length;
      },
      'every client byte reaches the desktop',
      90_000,
    );
    expect(desktop.bytesFor(connectionId).equals(Buffer.concat([client.hello, up]))).toBe(true);

    // desktop → client: small pieces in order, then a large one, ACKed once written to the client.
    const down = Array.from({ length: 300 }, (_, i) => crypto.randomBytes(1 + (i % 40) * 53));
    down.push(crypto.randomBytes(32 * MiB));
    for (const payload of down) desktop.send({ type: LINK_FRAME.data, connectionId, payload });
    const expected = Buffer.concat(down);
    const clientLength = () => client.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    await waitUntil(() => clientLength() >= expected.length, 'every desktop byte reaches the client', 90_000);
    expect(client.received.equals(expected)).toBe(true);
    await waitUntil(
      () => desktop.ackedFor(connectionId) === expected.length,
      'the client’s node ACKs every byte written to the client',
      60_000,
    );

    // CLOSE from the desktop closes the client's connection.
    desktop.send({ type: LINK_FRAME.close, connectionId, code: 1000, reason: 'done' });
    await client.closed;

    // The client's close reaches the desktop as END (a half-close); the desktop's END then ends both sides with a CLOSE.
    const second = await connectStream(nodes[1]!, desktop);
    second.client.socket.destroy();
    await desktop.waitFor(
      (f): f is LinkFrame => f.type === LINK_FRAME.end && f.connectionId === second.connectionId,
      'the client’s end reaches the desktop',
    );
    desktop.send({ type: LINK_FRAME.end, connectionId: second.connectionId });
    await desktop.waitFor(isClose(second.connectionId), 'both ends done, the node closes the stream');
    desktop.socket.ws.close();
  }, 180_000);

  it('RLY-4 RLY-6 closes a client whose desktop is not linked, and counts it', async () => {
    const offline = await openStream(nodes[1]!, makeDesktopKeys().desktopId);
    await offline.closed;
    expect(offline.received.length).toBe(0);
    await waitUntil(
      () => (nodes[1]!.stats()!.refusals.desktop_offline ?? 0) >= 1,
      'the node counts the offline desktop',
    );
  }, 60_000);

  it('RLY-4 closes the desktop’s connections on every node when its link drops', async () => {
    const desktop = await linkDesktop(nodes[0]!);
    const before = nodes.map((node) => node.stats()!.passthroughConnections);
    const one = await connectStream(nodes[1]!, desktop);
    const two = await connectStream(nodes[0]!, desktop);
    desktop.socket.ws.terminate();
    await Promise.all([one.client.closed, two.client.closed]);
    await waitUntil(
      () => nodes.every((node, i) => node.stats()!.passthroughConnections === before[i]),
      'both nodes forget the connections',
    );
  }, 60_000);

  it('RLY-4 a new registration of the desktop takes over: the old link 4409, its connections closed, new ones reach the new link', async () => {
    const keys = makeDesktopKeys();
    const first = await linkDesktop(nodes[0]!, keys);
    const old = await connectStream(nodes[1]!, first);
    const second = await linkDesktop(nodes[1]!, keys);
    expect((await first.socket.closed).code).toBe(RELAY_CLOSE_CODES.replaced);
    await old.client.closed;
    const fresh = await connectStream(nodes[0]!, second);
    fresh.client.write(Buffer.from('hello'));
    await waitUntil(
      () => second.bytesFor(fresh.connectionId).subarray(fresh.client.hello.length).toString() === 'hello',
      'a new client reaches the new link',
    );
    expect(first.frames().some((f) => f.connectionId === fresh.connectionId)).toBe(false);
    second.socket.ws.close();
  }, 60_000);
});
