import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeLinkFrame, LINK_FRAME } from '../../../lib/relay/relayWire';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { connectStream, linkDesktop, makeDesktopKeys } from '../../fixtures/relayClients';
import { captureNats, startRelayNodes, type NatsCapture, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-1, RLY-6: what the nodes put on NATS is the streams' bytes, ids and counts, nothing else:
// no key, no signature, no nonce, no byte a client or the desktop did not send.
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

describe('RLY-1 what relay nodes put on NATS and send to clients', () => {
  it('RLY-1 RLY-6 only the streams’ bytes, ids and counts', async () => {
    const keys = makeDesktopKeys();
    const desktop = await linkDesktop(nodes[0]!, keys);
    const { client, connectionId } = await connectStream(nodes[1]!, desktop);
    const up = Buffer.concat([crypto.randomBytes(100), crypto.randomBytes(2 * 1024 * 1024)]);
    const down = [crypto.randomBytes(300), crypto.randomBytes(1024 * 1024 + 17)];
    client.write(up);
    for (const payload of down) desktop.send({ type: LINK_FRAME.data, connectionId, payload });
    const sentUp = Buffer.concat([client.hello, up]);
    await waitUntil(
      () =>
        desktop.bytesFor(connectionId).length === sentUp.length &&
        client.received.length === down[0]!.length + down[1]!.length,
      'the bytes cross',
    );
    await waitUntil(() => desktop.ackedFor(connectionId) === down[0]!.length + down[1]!.length, 'the ACKs come back');
    desktop.send({ type: LINK_FRAME.close, connectionId, code: 1000, reason: 'done' });
    await client.closed;

    // Each side got exactly the other's bytes, nothing more.
    expect(desktop.bytesFor(connectionId).equals(sentUp)).toBe(true);
    expect(client.received.equals(Buffer.concat(down))).toBe(true);

    const sent = [sentUp, ...down];
    const secrets = [
      keys.publicKeyRaw,
      Buffer.from(keys.publicKeyRaw.toString('base64url')),
      Buffer.from(desktop.challenge.nonce),
    ];
    for (const secret of secrets) expect(capture.contains(secret)).toBe(false);
    const routed = capture.messages.filter(
      (m) => m.subject.startsWith('hbr.desk.') || m.subject.startsWith('hbr.node.') || m.subject.startsWith('_INBOX.'),
    );
    expect(routed.length).toBeGreaterThan(0);
    for (const message of routed) {
      const kind = message.headers['hbr-k']?.[0];
      if (kind === 'part') {
        // A part is a slice of the bytes one side sent.
        expect(sent.some((frame) => frame.includes(Buffer.from(message.data)))).toBe(true);
      } else if (message.data.length > 0) {
        // Anything else is a stream, close, end or ack: no payload beyond a code, a reason or a count, or DATA of sent bytes.
        const frame = decodeLinkFrame(message.data);
        if (frame.type === LINK_FRAME.data)
          expect(sent.some((bytes) => bytes.includes(Buffer.from(frame.payload)))).toBe(true);
        else expect([LINK_FRAME.stream, LINK_FRAME.close, LINK_FRAME.end, LINK_FRAME.ack]).toContain(frame.type);
      }
      const headerNames = Object.keys(message.headers).sort();
      expect(
        headerNames.every((name) =>
          ['hbr-conn', 'hbr-desk', 'hbr-from', 'hbr-k', 'hbr-more', 'hbr-reg'].includes(name),
        ),
      ).toBe(true);
    }
    for (const message of capture.messages.filter(
      (m) => m.subject.startsWith('hbr.alive.') || m.subject.startsWith('hbr.ctl.'),
    ))
      expect(message.data.length).toBe(0);
    desktop.socket.ws.close();
  }, 60_000);
});
