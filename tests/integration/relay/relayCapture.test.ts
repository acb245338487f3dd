import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeLinkFrame, LINK_FRAME } from '../../../lib/relay/relayWire';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { connectDevice, linkDesktop, makeDesktopKeys } from '../../fixtures/relayClients';
import { captureNats, startRelayNodes, type NatsCapture, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-1, RLY-2: what the nodes put on NATS is the channel frames' bytes, ids and counts, nothing
// else: no key, no signature, no nonce, no byte a client did not send as a frame.
let nats: NatsServer;
let nodes: RelayNodeHandle[];
let capture: NatsCapture;

beforeAll(async () => {
  nats = await startNatsServer();
  nodes = await startRelayNodes({ natsUrl: nats.url, count: 2 });
  capture = await captureNats(nats.url);
}, 120_000);

afterAll(async () => {
  await capture?.stop();
  for (const node of nodes ?? []) await node.stop();
  await nats?.stop();
});

describe('what relay nodes put on NATS and send to clients', () => {
  it('only the frames’ bytes, ids and counts', async () => {
    const keys = makeDesktopKeys();
    const desktop = await linkDesktop(nodes[0]!, keys);
    const { device, connectionId } = await connectDevice(nodes[1]!, desktop);
    const up = [crypto.randomBytes(100), crypto.randomBytes(2 * 1024 * 1024)];
    const down = [crypto.randomBytes(300), crypto.randomBytes(1024 * 1024 + 17)];
    for (const frame of up) device.ws.send(frame);
    for (const payload of down) desktop.send({ type: LINK_FRAME.data, connectionId, payload });
    await waitUntil(() => desktop.dataFor(connectionId).length === up.length && device.binaries.length === down.length, 'the frames cross');
    await waitUntil(() => desktop.ackedFor(connectionId) === down[0]!.length + down[1]!.length, 'the ACKs come back');
    device.ws.close(1000);
    await waitUntil(() => desktop.frames().some((f) => f.type === LINK_FRAME.close), 'the close crosses');

    // The device got exactly the desktop's frames, nothing more (no notice, no text).
    expect(device.texts).toEqual([]);
    expect(device.binaries.map((b) => b.toString('hex'))).toEqual(down.map((d) => d.toString('hex')));

    const sent = [...up, ...down];
    const secrets = [keys.publicKeyRaw, Buffer.from(keys.publicKeyRaw.toString('base64url')), Buffer.from(desktop.challenge.nonce)];
    for (const secret of secrets) expect(capture.contains(secret)).toBe(false);
    const routed = capture.messages.filter((m) => m.subject.startsWith('hbr.desk.') || m.subject.startsWith('hbr.node.') || m.subject.startsWith('_INBOX.'));
    expect(routed.length).toBeGreaterThan(0);
    for (const message of routed) {
      const kind = message.headers['hbr-k']?.[0];
      if (kind === 'part') {
        // A part is a slice of one frame a client sent.
        expect(sent.some((frame) => frame.includes(Buffer.from(message.data)))).toBe(true);
      } else if (message.data.length > 0) {
        // Anything else is an open, close or ack: no payload beyond a code, a reason or a count.
        expect([LINK_FRAME.open, LINK_FRAME.close, LINK_FRAME.ack]).toContain(decodeLinkFrame(message.data).type);
      }
      const headerNames = Object.keys(message.headers).sort();
      expect(headerNames.every((name) => ['hbr-conn', 'hbr-desk', 'hbr-from', 'hbr-k', 'hbr-more', 'hbr-reg'].includes(name))).toBe(true);
    }
    for (const message of capture.messages.filter((m) => m.subject.startsWith('hbr.alive.') || m.subject.startsWith('hbr.ctl.'))) expect(message.data.length).toBe(0);
    desktop.socket.ws.close();
  }, 60_000);
});
