import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_WINDOW_BYTES, LINK_FRAME, RELAY_CLOSE_CODES, type LinkFrame } from '../../../lib/relay/relayWire';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { connectStream, linkDesktop } from '../../fixtures/relayClients';
import { startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-4: a window of un-ACKed bytes per connection and direction bounds what any node holds.
const MIB = 1024 * 1024;
let nats: NatsServer;
let nodes: RelayNodeHandle[];

beforeAll(async () => {
  nats = await startNatsServer();
  nodes = await startRelayNodes({ natsUrl: nats.url, count: 2 });
}, 120_000);

afterAll(async () => {
  for (const node of nodes ?? []) await node.stop();
  await nats?.stop();
});

/** Waits until `read()` has not changed for `quietMs` (ACKs stopped), checking every 100 ms. */
async function settled(read: () => number, quietMs: number): Promise<number> {
  let last = read();
  let since = Date.now();
  return waitUntil(
    () => {
      const now = read();
      if (now !== last) {
        last = now;
        since = Date.now();
      }
      return Date.now() - since >= quietMs && { value: now };
    },
    'the count settles',
    { timeoutMs: 60_000, intervalMs: 100 },
  ).then((v) => v.value);
}

describe('RLY-4 flow control through the relay', () => {
  it('RLY-4 a client that stops reading: ACKs stop, the node holds at most a window; reading again delivers everything', async () => {
    const desktop = await linkDesktop(nodes[0]!);
    const { client, connectionId } = await connectStream(nodes[1]!, desktop);
    client.socket.pause();
    const frame = crypto.randomBytes(MIB);
    let sent = 0;
    let maxBuffered = 0;
    // An honest desktop: at most a window un-ACKed, sending whenever ACKs make room, until they stop.
    const pump = () => {
      while (
        sent - desktop.ackedFor(connectionId) + frame.length <= CHANNEL_WINDOW_BYTES &&
        sent < 4 * CHANNEL_WINDOW_BYTES
      ) {
        desktop.send({ type: LINK_FRAME.data, connectionId, payload: frame });
        sent += frame.length;
      }
      maxBuffered = Math.max(maxBuffered, nodes[1]!.stats()!.bufferedBytes);
      return sent - desktop.ackedFor(connectionId);
    };
    await settled(pump, 1_500);
    const acked = desktop.ackedFor(connectionId);
    expect(sent - acked).toBeGreaterThan(CHANNEL_WINDOW_BYTES - frame.length);
    expect(sent).toBeLessThan(4 * CHANNEL_WINDOW_BYTES);
    expect(maxBuffered).toBeLessThanOrEqual(CHANNEL_WINDOW_BYTES);
    expect(nodes[1]!.stats()!.bufferedBytes).toBeGreaterThan(0);
    client.socket.resume();
    const readBytes = () => client.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    await waitUntil(() => readBytes() === sent, 'the client reads every byte once it reads again', 60_000);
    await waitUntil(() => desktop.ackedFor(connectionId) === sent, 'every byte is ACKed');
    expect(client.received.equals(Buffer.concat(Array.from({ length: sent / frame.length }, () => frame)))).toBe(true);
    desktop.socket.ws.close();
  }, 120_000);

  it('RLY-4 a desktop that does not ACK: the client’s node stops reading the client at the window', async () => {
    const desktop = await linkDesktop(nodes[0]!);
    const { client, connectionId } = await connectStream(nodes[1]!, desktop);
    const frame = crypto.randomBytes(MIB);
    const frames = Math.ceil((2 * CHANNEL_WINDOW_BYTES) / frame.length);
    const total = frames * frame.length;
    for (let i = 0; i < frames; i++) client.write(frame);
    const bytesAtDesktop = () =>
      desktop.dataFor(connectionId).reduce((sum, p) => sum + p.length, 0) - client.hello.length;
    const stalled = await settled(bytesAtDesktop, 1_500);
    expect(stalled).toBeLessThanOrEqual(CHANNEL_WINDOW_BYTES);
    expect(stalled).toBeLessThan(total);
    // Now it ACKs what it received, as a desktop does once its TLS socket took the bytes.
    let acked = -client.hello.length;
    await waitUntil(
      () => {
        const received = bytesAtDesktop();
        if (received > acked) {
          desktop.send({ type: LINK_FRAME.ack, connectionId, bytes: received - acked });
          acked = received;
        }
        return received === total;
      },
      'ACKs let the rest through',
      60_000,
    );
    expect(bytesAtDesktop()).toBe(total);
    expect(client.closedNow).toBe(false);
    desktop.socket.ws.close();
  }, 120_000);

  it('RLY-4 a desktop that sends past the window gets that connection closed 1008; its other connections go on', async () => {
    const desktop = await linkDesktop(nodes[0]!);
    const { client, connectionId } = await connectStream(nodes[1]!, desktop);
    const other = await connectStream(nodes[1]!, desktop);
    client.socket.pause();
    const frame = Buffer.alloc(MIB, 1);
    const isClose = (f: LinkFrame): f is Extract<LinkFrame, { type: 3 }> =>
      f.type === LINK_FRAME.close && f.connectionId === connectionId;
    // Twice the window: more than the window even after the kernel's socket buffers took their share.
    for (let sent = 0; sent <= 2 * CHANNEL_WINDOW_BYTES; sent += frame.length)
      desktop.send({ type: LINK_FRAME.data, connectionId, payload: frame });
    const close = await desktop.waitFor(isClose, 'the node closes the connection that went past its window');
    expect(close.code).toBe(RELAY_CLOSE_CODES.notReading);
    expect(nodes[0]!.stats()!.refusals.window_exceeded).toBe(1);
    client.socket.resume();
    await client.closed;
    other.client.write(Buffer.from('still here'));
    await waitUntil(
      () => desktop.bytesFor(other.connectionId).subarray(other.client.hello.length).toString() === 'still here',
      'the desktop’s other connection still routes',
    );
    desktop.socket.ws.close();
  }, 120_000);
});
