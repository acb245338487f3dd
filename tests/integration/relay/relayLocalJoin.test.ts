// RLY-8: one hop when it can. A passthrough stream whose desktop's link is on the same node is
// joined on that node: no NATS message carries it, the windows and the budget hold as they do
// across nodes. Across nodes NATS carries it as before. A desktop that links again elsewhere
// mid-stream ends the stream cleanly and the client's socket is closed.
import crypto from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_FRAME, type LinkFrame } from '../../../lib/relay/relayWire';
import { clientHelloFor } from '../../fixtures/clientHello';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { linkDesktop, makeDesktopKeys, type TestDesktop } from '../../fixtures/relayClients';
import { captureNats, startRelayNodes, type NatsCapture, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { waitUntil } from '../../fixtures/waitUntil';

/** Small, so a test sees the windows at work without moving 40 MiB. */
const WINDOW_BYTES = 256 * 1024;
const CHUNK_BYTES = 32 * 1024;

let nats: NatsServer;
let capture: NatsCapture;
let node1: RelayNodeHandle;
let node2: RelayNodeHandle;

beforeAll(async () => {
  nats = await startNatsServer();
  const nodes = await startRelayNodes({
    natsUrl: nats.url,
    count: 2,
    options: { tlsPort: 0, windowBytes: WINDOW_BYTES },
  });
  node1 = nodes[0]!;
  node2 = nodes[1]!;
  capture = await captureNats(nats.url);
}, 120_000);

afterAll(async () => {
  await capture?.stop();
  await node1?.stop();
  await node2?.stop();
  await nats?.stop();
});

/** A client of a node's TLS port that sends a ClientHello for the desktop's name, then raw bytes (the node reads no further). */
interface Client {
  socket: net.Socket;
  received(): Buffer;
  /** Resolves once the node closed the socket; `ended`: it sent FIN first (a clean end, not a reset). */
  closed: Promise<{ ended: boolean; hadError: boolean }>;
}

async function openStream(node: RelayNodeHandle, desktopId: string): Promise<{ client: Client; hello: Buffer }> {
  const hello = await clientHelloFor(`${desktopId}.relay.localhost`);
  const socket = net.connect(node.tlsPort!, '127.0.0.1');
  const chunks: Buffer[] = [];
  let ended = false;
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('end', () => (ended = true));
  socket.on('error', () => undefined);
  const closed = new Promise<{ ended: boolean; hadError: boolean }>((resolve) =>
    socket.once('close', (hadError) => resolve({ ended, hadError })),
  );
  socket.write(hello);
  return { client: { socket, received: () => Buffer.concat(chunks), closed }, hello };
}

async function streamOpened(desktop: TestDesktop, index: number): Promise<string> {
  const streams = await waitUntil(
    () => {
      const list = desktop.frames().filter((frame) => frame.type === LINK_FRAME.stream);
      return list.length > index && list;
    },
    `STREAM number ${index + 1} reaches the desktop`,
  );
  return streams[index]!.connectionId;
}

const receivedBy = (desktop: TestDesktop, connectionId: string) => Buffer.concat(desktop.dataFor(connectionId));

/** Sends `bytes` as DATA, never more than the window ahead of the node's ACKs (as the runtime does). */
async function sendWithinWindow(desktop: TestDesktop, connectionId: string, bytes: Buffer): Promise<void> {
  const ackedBefore = desktop.ackedFor(connectionId);
  for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) {
    const payload = bytes.subarray(offset, offset + CHUNK_BYTES);
    await waitUntil(
      () => offset + payload.length - (desktop.ackedFor(connectionId) - ackedBefore) <= WINDOW_BYTES,
      'the node ACKs within the window',
    );
    desktop.send({ type: LINK_FRAME.data, connectionId, payload });
  }
}

/** NATS messages of one connection: parts name it in a header, control frames in their payload. */
function natsMessagesOf(connectionId: string): number {
  const id = Buffer.from(connectionId);
  return capture.messages.filter((m) => m.headers['hbr-conn']?.[0] === connectionId || Buffer.from(m.data).includes(id))
    .length;
}

const routeMessagesSince = (from: number) =>
  capture.messages.slice(from).filter((m) => !m.subject.startsWith('hbr.alive.')).length;

describe('RLY-8 one hop when it can', () => {
  it('RLY-8 a stream and its desktop’s link on one node are joined there: bytes exact both ways, no NATS message for the stream, windows kept', async () => {
    const desktop = await linkDesktop(node1);
    const from = capture.messages.length;
    const { client, hello } = await openStream(node1, desktop.desktopId);
    const connectionId = await streamOpened(desktop, 0);
    await waitUntil(() => receivedBy(desktop, connectionId).length >= hello.length, 'the hello reaches the desktop');

    // Client → desktop: reading pauses while a window is un-ACKed (with this small window, after
    // each read), and goes on with the ACKs.
    const up = crypto.randomBytes(4 * WINDOW_BYTES);
    client.socket.write(up);
    desktop.send({ type: LINK_FRAME.ack, connectionId, bytes: hello.length });
    let acked = hello.length;
    await waitUntil(() => receivedBy(desktop, connectionId).length > hello.length, 'the first bytes reach the desktop');
    await waitUntil(() => node1.stats()!.bufferedBytes === 0, 'the node wrote what it read');
    expect(receivedBy(desktop, connectionId).length).toBeLessThanOrEqual(hello.length + WINDOW_BYTES);
    await waitUntil(() => {
      const got = receivedBy(desktop, connectionId).length;
      if (got > acked) {
        desktop.send({ type: LINK_FRAME.ack, connectionId, bytes: got - acked });
        acked = got;
      }
      return got === hello.length + up.length;
    }, 'every byte reaches the desktop as the desktop ACKs');
    expect(receivedBy(desktop, connectionId).equals(Buffer.concat([hello, up]))).toBe(true);

    // Desktop → client: ACKed by the node as the client's socket takes them.
    const down = crypto.randomBytes(6 * WINDOW_BYTES + 123);
    await sendWithinWindow(desktop, connectionId, down);
    await waitUntil(() => client.received().length === down.length, 'every byte reaches the client');
    expect(client.received().equals(down)).toBe(true);
    await waitUntil(() => desktop.ackedFor(connectionId) === down.length, 'the node ACKs all of it');

    // END from the client, then from the desktop: the stream closes on both sides.
    client.socket.end();
    await desktop.waitFor(
      (f): f is LinkFrame => f.type === LINK_FRAME.end && f.connectionId === connectionId,
      'the client’s END reaches the desktop',
    );
    desktop.send({ type: LINK_FRAME.end, connectionId });
    expect(await client.closed).toEqual({ ended: true, hadError: false });
    await waitUntil(() => node1.stats()!.passthroughConnections === 0, 'the node lets go of the stream');

    expect(natsMessagesOf(connectionId)).toBe(0);
    expect(capture.messages.slice(from).filter((m) => m.headers['hbr-k']?.[0] === 'part')).toEqual([]);
    expect(routeMessagesSince(from)).toBe(0);
    expect(node1.stats()!.bufferedBytes).toBe(0);
    desktop.socket.ws.close();
  }, 90_000);

  it('RLY-8 a stream on another node than its desktop’s link still crosses NATS, bytes exact', async () => {
    const desktop = await linkDesktop(node1);
    const { client, hello } = await openStream(node2, desktop.desktopId);
    const connectionId = await streamOpened(desktop, 0);
    const up = crypto.randomBytes(WINDOW_BYTES / 2);
    client.socket.write(up);
    let acked = 0;
    await waitUntil(() => {
      const got = receivedBy(desktop, connectionId).length;
      if (got > acked) {
        desktop.send({ type: LINK_FRAME.ack, connectionId, bytes: got - acked });
        acked = got;
      }
      return got === hello.length + up.length;
    }, 'the client’s bytes reach the desktop as the desktop ACKs');
    expect(receivedBy(desktop, connectionId).equals(Buffer.concat([hello, up]))).toBe(true);
    const down = crypto.randomBytes(3 * WINDOW_BYTES);
    await sendWithinWindow(desktop, connectionId, down);
    await waitUntil(() => client.received().length === down.length, 'every byte reaches the client');
    expect(client.received().equals(down)).toBe(true);
    expect(capture.messages.filter((m) => m.headers['hbr-conn']?.[0] === connectionId).length).toBeGreaterThan(0);
    // The node keeps a client's half-close open for the desktop's answer: the END crosses too.
    client.socket.end();
    await desktop.waitFor(
      (f): f is LinkFrame => f.type === LINK_FRAME.end && f.connectionId === connectionId,
      'the client’s END reaches the desktop',
    );
    desktop.send({ type: LINK_FRAME.end, connectionId });
    expect(await client.closed).toEqual({ ended: true, hadError: false });
    await waitUntil(() => node2.stats()!.passthroughConnections === 0, 'node 2 lets go of the stream');
    desktop.socket.ws.close();
  }, 90_000);

  it('RLY-8 a desktop that links again on another node mid-stream: the joined stream is closed cleanly, and the next one crosses NATS to the new link', async () => {
    const keys = makeDesktopKeys();
    const first = await linkDesktop(node1, keys);
    const { client } = await openStream(node1, keys.desktopId);
    const connectionId = await streamOpened(first, 0);
    const down = crypto.randomBytes(WINDOW_BYTES);
    await sendWithinWindow(first, connectionId, down);
    await waitUntil(() => client.received().length === down.length, 'the first bytes reach the client');

    const second = await linkDesktop(node2, keys);
    expect((await first.socket.closed).code).toBe(4409);
    // The client is told by its socket's end, after every byte it was sent.
    expect(await client.closed).toEqual({ ended: true, hadError: false });
    expect(client.received().equals(down)).toBe(true);
    await waitUntil(
      () => node1.stats()!.passthroughConnections === 0 && node1.stats()!.bufferedBytes === 0,
      'node 1 lets go of the stream',
    );

    const from = capture.messages.length;
    const next = await openStream(node1, keys.desktopId);
    const nextId = await streamOpened(second, 0);
    await waitUntil(
      () => receivedBy(second, nextId).equals(next.hello),
      'the next stream reaches the new link over NATS',
    );
    expect(natsMessagesOf(nextId)).toBeGreaterThan(0);
    expect(routeMessagesSince(from)).toBeGreaterThan(0);
    next.client.socket.destroy();
    second.socket.ws.close();
  }, 90_000);

  it('RLY-8 a stream routed over NATS whose desktop links again on the stream’s own node is closed, and the next one is joined there', async () => {
    const keys = makeDesktopKeys();
    const first = await linkDesktop(node1, keys);
    const { client } = await openStream(node2, keys.desktopId);
    const connectionId = await streamOpened(first, 0);
    await waitUntil(() => receivedBy(first, connectionId).length > 0, 'the hello reaches the desktop');

    const second = await linkDesktop(node2, keys);
    expect((await first.socket.closed).code).toBe(4409);
    expect((await client.closed).hadError).toBe(false);
    await waitUntil(() => node2.stats()!.passthroughConnections === 0, 'node 2 lets go of the stream');

    const from = capture.messages.length;
    const next = await openStream(node2, keys.desktopId);
    const nextId = await streamOpened(second, 0);
    await waitUntil(
      () => receivedBy(second, nextId).equals(next.hello),
      'the next stream reaches the new link on its node',
    );
    expect(routeMessagesSince(from)).toBe(0);
    next.client.socket.destroy();
    second.socket.ws.close();
  }, 90_000);
});
