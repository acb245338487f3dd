import crypto from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  LINK_FRAME,
  MAX_CHANNEL_FRAME_BYTES,
  RELAY_CLOSE_CODES,
  RELAY_DESKTOP_PATH,
  type LinkFrame,
} from '../../../lib/relay/relayWire';
import type { RelayNodeStats } from '../../../relay/relayNode';
import { clientHelloFor } from '../../fixtures/clientHello';
import { residentBytes, watchResidentMemory } from '../../fixtures/handshakeSocket';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { connectStream, linkDesktop, RecordingSocket, type RelayAddress } from '../../fixtures/relayClients';
import { startRelayChild, startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { httpGet } from '../../fixtures/runtimeProcess';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-4: what sockets can make a node hold is bounded before they are routed, and in total.
const MiB = 1024 * 1024;
/** The child node's budget: what the attack may at most make it hold. */
const CHILD_BUDGET_MIB = 64;
const ATTACK_SOCKETS = 100;
/** One frame as large as a registered link may send, announced and sent in full by every attacker. */
const ATTACK_FRAME = Buffer.alloc(MAX_CHANNEL_FRAME_BYTES, 7);

/**
 * A socket that sends one frame as soon as it opens. Unmasked (a zero masking key), so `ws` sends
 * the one shared buffer as it is instead of a copy per socket: the test process holds 33 MiB, not 3 GiB.
 */
function attacker(address: RelayAddress, path: string, frame: Buffer): RecordingSocket {
  const ws = new WebSocket(`ws://127.0.0.1:${address.port}${path}`, {
    headers: { host: address.host, origin: address.publicUrl },
    perMessageDeflate: false,
    generateMask: (mask: Buffer) => void mask.fill(0),
  });
  ws.on('error', () => undefined);
  const socket = new RecordingSocket(ws);
  ws.once('open', () => ws.send(frame));
  return socket;
}

describe('RLY-4 a node’s bounds', () => {
  let nats: NatsServer;
  let child: RelayNodeHandle;
  let small: RelayNodeHandle;
  /** The in-process node's budget, small enough for a test to reach. */
  const SMALL_BUDGET = 4 * MiB;

  beforeAll(async () => {
    nats = await startNatsServer();
    child = await startRelayChild(nats.url, 'bounded', undefined, [
      '--memory-budget-mib',
      String(CHILD_BUDGET_MIB),
      '--connect-burst',
      '1000',
    ]);
    small = (
      await startRelayNodes({
        natsUrl: nats.url,
        count: 1,
        options: { nodeId: 'small', memoryBudgetBytes: SMALL_BUDGET, tlsPort: 0 },
      })
    )[0]!;
  }, 120_000);

  afterAll(async () => {
    await child?.stop();
    await small?.stop();
    await nats?.stop();
  });

  it(`RLY-4 ${ATTACK_SOCKETS} unregistered desktop links each sending a 33 MiB frame: refused 1009 at the frame's header, the node's memory stays within its budget`, async () => {
    const pid = child.pid!;
    const attack = (frame: Buffer) =>
      Array.from({ length: ATTACK_SOCKETS }, () => attacker(child, RELAY_DESKTOP_PATH, frame));
    // The same sockets with a frame just over the limit first: what a hundred sockets cost the node once
    // (its heap grows, code is compiled) is not what the large frames make it hold.
    await Promise.all(attack(Buffer.alloc(16 * 1024)).map((s) => s.closed));
    const before = residentBytes(pid);
    const rss = watchResidentMemory(pid, 20);
    const budgetSeen: RelayNodeStats[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) budgetSeen.push(await child.readStats());
    })();
    // Desktop links before their challenge is answered: the only sockets of a node that take WebSocket frames.
    const sockets = attack(ATTACK_FRAME);
    const closes = await Promise.all(sockets.map((s) => s.closed));
    sampling = false;
    await sampler;
    const peak = rss.stop();
    // 1009 (Message Too Big) at the header: every socket's frame is counted too_large.
    expect(closes.filter((c) => c.code !== 1009)).toEqual([]);
    const stats = await child.readStats();
    expect(stats.refusals.too_large).toBe(2 * ATTACK_SOCKETS);
    expect(stats.budgetBytes).toBe(CHILD_BUDGET_MIB * MiB);
    expect(Math.max(...budgetSeen.map((s) => s.bufferedBytes))).toBeLessThanOrEqual(CHILD_BUDGET_MIB * MiB);
    // Held, the frames would be 3.3 GB; refused at their headers, the node grows by what 100 sockets cost.
    expect(peak - before).toBeLessThan(CHILD_BUDGET_MIB * MiB);
    await waitUntil(
      async () => (await child.readStats()).bufferedBytes === 0,
      'the node holds nothing once the sockets are gone',
    );
    expect((await httpGet(child.port, '/healthz', child.host)).status).toBe(200);
    // A registered link and its streams still work.
    const desktop = await linkDesktop(child);
    const { client, connectionId } = await connectStream(child, desktop);
    const bytes = crypto.randomBytes(4 * MiB);
    client.write(bytes);
    const length = () => desktop.dataFor(connectionId).reduce((sum, payload) => sum + payload.length, 0);
    await waitUntil(
      () => length() === client.hello.length + bytes.length,
      'a routed stream’s 4 MiB reach its desktop',
      60_000,
    );
    expect(desktop.bytesFor(connectionId).subarray(client.hello.length).equals(bytes)).toBe(true);
    desktop.socket.ws.close();
  }, 180_000);

  it('RLY-4 a desktop sending to clients that do not read: the one whose bytes would not fit is closed 1013; the node never holds more than its budget', async () => {
    const desktop = await linkDesktop(small);
    const readers = [await connectStream(small, desktop), await connectStream(small, desktop)];
    for (const { client } of readers) client.socket.pause();
    const frame = crypto.randomBytes(MiB);
    let maxHeld = 0;
    // Within each connection's window (ACKs stop when the clients stop reading): the budget, not the window, is what ends it.
    for (let i = 0; i < 16; i++)
      for (const { connectionId } of readers) desktop.send({ type: LINK_FRAME.data, connectionId, payload: frame });
    const closedOne = await waitUntil(
      () => {
        maxHeld = Math.max(maxHeld, small.stats()!.bufferedBytes);
        return desktop.frames().find((f) => f.type === LINK_FRAME.close);
      },
      'the node closes a connection rather than grow',
      { timeoutMs: 60_000, intervalMs: 5 },
    );
    expect(closedOne.type === LINK_FRAME.close && closedOne.code).toBe(RELAY_CLOSE_CODES.tryAgainLater);
    expect(maxHeld).toBeLessThanOrEqual(SMALL_BUDGET);
    for (const { client } of readers) client.socket.resume();
    desktop.socket.ws.close();
    await waitUntil(
      () => small.stats()!.bufferedBytes === 0 && small.stats()!.passthroughConnections === 0,
      'the node holds nothing once the connections are gone',
    );
  }, 90_000);

  it('RLY-4 RLY-6 a TLS passthrough stream whose client does not read counts in the budget too: closed 1013 when its next bytes would not fit', async () => {
    const desktop = await linkDesktop(small);
    const client = net.connect(small.tlsPort!, '127.0.0.1');
    client.on('error', () => undefined);
    const clientClosed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.write(await clientHelloFor(`${desktop.desktopId}.relay.localhost`));
    client.pause();
    const stream = await desktop.waitFor(
      (f: LinkFrame): f is Extract<LinkFrame, { connectionId: string }> => f.type === LINK_FRAME.stream,
      'the desktop is asked for a stream',
    );
    const chunk = crypto.randomBytes(MiB);
    let maxHeld = 0;
    // Past what loopback's socket buffers take, within the stream's window: the budget is what ends it.
    for (let i = 0; i < 24; i++)
      desktop.send({ type: LINK_FRAME.data, connectionId: stream.connectionId, payload: chunk });
    const close = await waitUntil(
      () => {
        maxHeld = Math.max(maxHeld, small.stats()!.bufferedBytes);
        return desktop.frames().find((f) => f.type === LINK_FRAME.close && f.connectionId === stream.connectionId);
      },
      'the node closes the stream rather than grow',
      { timeoutMs: 60_000, intervalMs: 5 },
    );
    expect(close.type === LINK_FRAME.close && close.code).toBe(RELAY_CLOSE_CODES.tryAgainLater);
    expect(maxHeld).toBeGreaterThan(0);
    expect(maxHeld).toBeLessThanOrEqual(SMALL_BUDGET);
    // A paused client reads no FIN either: it sees the close once it reads again.
    client.resume();
    await clientClosed;
    await waitUntil(
      () => small.stats()!.bufferedBytes === 0 && small.stats()!.passthroughConnections === 0,
      'the node holds nothing once the stream is gone',
    );
    desktop.socket.ws.close();
  }, 90_000);
});
