import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeLinkFrame, LINK_FRAME, MAX_CHANNEL_FRAME_BYTES, RelayNoticeSchema } from '../../../lib/relay/relayWire';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { connectDevice, linkDesktop, makeDesktopKeys, openDevice, type RecordingSocket, type TestDesktop } from '../../fixtures/relayClients';
import { startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-1, RLY-4: whatever a desktop, a device or another NATS client sends, the node refuses what
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

/** The device's frame, sent after the bad input, still arrives: the connection goes on. */
async function stillRoutes(desktop: TestDesktop, device: RecordingSocket, connectionId: string, marker: string): Promise<void> {
  device.ws.send(Buffer.from(marker));
  await waitUntil(() => desktop.dataFor(connectionId).some((p) => Buffer.from(p).toString() === marker), `“${marker}” reaches the desktop`);
  const before = device.binaries.length;
  desktop.send({ type: LINK_FRAME.data, connectionId, payload: Buffer.from(`${marker}-back`) });
  await waitUntil(() => device.binaries.slice(before).some((b) => b.toString() === `${marker}-back`), `“${marker}-back” reaches the device`);
}

const refusals = (node: RelayNodeHandle) => node.stats()!.refusals;

describe('bad input at a relay node', () => {
  it('refuses an oversize device frame and a text frame with a notice; the same socket’s next frame is delivered', async () => {
    const desktop = await linkDesktop(nodes[0]!);
    const { device, connectionId } = await connectDevice(nodes[1]!, desktop);
    device.ws.send(Buffer.alloc(MAX_CHANNEL_FRAME_BYTES + 1, 9));
    await waitUntil(() => device.texts.length === 1, 'the too_large notice');
    expect(RelayNoticeSchema.parse(JSON.parse(device.texts[0]!)).reason).toBe('too_large');
    device.ws.send('a text frame');
    await waitUntil(() => device.texts.length === 2, 'the text_frame notice');
    expect(RelayNoticeSchema.parse(JSON.parse(device.texts[1]!)).reason).toBe('text_frame');
    await stillRoutes(desktop, device, connectionId, 'after-oversize');
    expect(desktop.dataFor(connectionId).every((p) => p.length < MAX_CHANNEL_FRAME_BYTES)).toBe(true);
    expect(refusals(nodes[1]!).too_large).toBe(1);
    expect(refusals(nodes[1]!).text_frame).toBe(1);
    desktop.socket.ws.close();
  }, 90_000);

  it('drops malformed link frames and frames for another desktop’s connection; that connection is unaffected', async () => {
    const alice = await linkDesktop(nodes[0]!);
    const mallory = await linkDesktop(nodes[0]!);
    const { device, connectionId } = await connectDevice(nodes[1]!, alice);
    for (const junk of [Buffer.from([]), Buffer.from([9, 0]), Buffer.from([2, 200, 1]), Buffer.from([2, 3, 0x61, 0x2e, 0x31])]) mallory.socket.ws.send(junk);
    mallory.socket.ws.send('text on a link');
    // Mallory addresses Alice's connection: DATA, ACK and CLOSE are all dropped.
    mallory.send({ type: LINK_FRAME.data, connectionId, payload: Buffer.from('injected') });
    mallory.send({ type: LINK_FRAME.ack, connectionId, bytes: 1000 });
    mallory.send({ type: LINK_FRAME.close, connectionId, code: 1000, reason: 'hijack' });
    await waitUntil(() => refusals(nodes[0]!).foreign_connection === 3, 'the three foreign frames are counted');
    expect(refusals(nodes[0]!).malformed_link_frame).toBe(5);
    await stillRoutes(alice, device, connectionId, 'after-foreign');
    expect(device.binaries.map((b) => b.toString())).not.toContain('injected');
    expect(device.isOpen).toBe(true);
    expect(mallory.socket.isOpen).toBe(true);
    alice.socket.ws.close();
    mallory.socket.ws.close();
  }, 60_000);

  it('drops NATS messages that name another desktop or come from another node than the desktop’s', async () => {
    const desktop = await linkDesktop(nodes[0]!);
    const { device, connectionId } = await connectDevice(nodes[1]!, desktop);
    const spoof = (desktopId: string, from: string) => {
      const h = headers();
      h.set('hbr-k', 'frame');
      h.set('hbr-from', from);
      h.set('hbr-desk', desktopId);
      spoofer.publish('hbr.node.node2', encodeLinkFrame({ type: LINK_FRAME.close, connectionId, code: 1000, reason: 'spoofed' }), { headers: h });
    };
    spoof(makeDesktopKeys().desktopId, 'node1');
    spoof(desktop.desktopId, 'intruder');
    spoofer.publish('hbr.node.node2', Buffer.from('no headers'));
    await waitUntil(() => refusals(nodes[1]!).foreign_desktop === 1 && refusals(nodes[1]!).foreign_node === 1 && refusals(nodes[1]!).malformed_nats_message === 1, 'the spoofed messages are counted');
    await stillRoutes(desktop, device, connectionId, 'after-spoof');
    desktop.socket.ws.close();
  }, 60_000);

  it('refuses a device socket whose Origin is not the relay’s (403) and a malformed desktop id (4404); logs carry no payload', async () => {
    const foreign = openDevice(nodes[1]!, makeDesktopKeys().desktopId, 'http://evil.localhost');
    await expect(foreign.opened).rejects.toThrow(/403/);
    const none = openDevice(nodes[1]!, makeDesktopKeys().desktopId, null);
    await expect(none.opened).rejects.toThrow(/403/);
    expect(refusals(nodes[1]!).bad_origin).toBe(2);
    for (const node of nodes) {
      expect(node.output()).not.toMatch(/injected|spoofed|hijack|after-|a text frame/);
    }
  });
});
