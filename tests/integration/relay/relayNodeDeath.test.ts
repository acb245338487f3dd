import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_FRAME, RELAY_CLOSE_CODES, type LinkFrame } from '../../../lib/relay/relayWire';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { connectDevice, linkDesktop } from '../../fixtures/relayClients';
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

describe('a relay node dies', () => {
  it('closes a device 4502 when its desktop’s node is killed', async () => {
    const desktop = await linkDesktop(nodes[0]!);
    const { device, connectionId } = await connectDevice(nodes[1]!, desktop);
    device.ws.send(Buffer.from([1, 2, 3]));
    await waitUntil(() => desktop.dataFor(connectionId).length === 1, 'the device’s frame reaches the desktop');
    await nodes[0]!.kill();
    // The bound: heartbeats every second, silence of 3.5 s is death; the wait is generous for a busy machine.
    const closed = await Promise.race([device.closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), 20_000))]);
    expect(closed?.code).toBe(RELAY_CLOSE_CODES.desktopGone);
    expect(nodes[1]!.stats()!.deviceConnections).toBe(0);
  }, 60_000);

  it('tells the desktop its connection is gone when the device’s node is killed', async () => {
    const desktop = await linkDesktop(nodes[1]!);
    const { connectionId } = await connectDevice(nodes[2]!, desktop);
    await nodes[2]!.kill();
    const close = await desktop.waitFor((f: LinkFrame): f is Extract<LinkFrame, { type: 3 }> => f.type === LINK_FRAME.close && f.connectionId === connectionId, 'a CLOSE for the dead node’s connection', 20_000);
    expect(close.code).toBe(RELAY_CLOSE_CODES.goingAway);
    expect(desktop.socket.isOpen).toBe(true);
    desktop.socket.ws.close();
  }, 60_000);
});
