// RLY-6: what a node's TLS port holds for a client before it knows where the connection goes:
// a ClientHello within a few records, a byte cap and a time limit. A hello sent a byte at a time
// still routes; one that never comes, never ends or is too long is closed and counted.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CLIENT_HELLO_READ_BYTES } from '../../../lib/relay/clientHello';
import { clientHelloFor } from '../../fixtures/clientHello';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { waitUntil } from '../../fixtures/waitUntil';

let nats: NatsServer;
/** Gives a hello all the time a slow client on a busy machine could need. */
let patient: RelayNodeHandle;
/** Gives it half a second. */
let node: RelayNodeHandle;

beforeAll(async () => {
  nats = await startNatsServer();
  // Short open timeouts: the desktops named below are never linked.
  patient = (
    await startRelayNodes({
      natsUrl: nats.url,
      count: 1,
      options: { tlsPort: 0, helloTimeoutMs: 60_000, openTimeoutMs: 500 },
    })
  )[0]!;
  node = (
    await startRelayNodes({
      natsUrl: nats.url,
      count: 1,
      options: { tlsPort: 0, helloTimeoutMs: 500, openTimeoutMs: 500 },
    })
  )[0]!;
}, 120_000);

afterAll(async () => {
  await patient?.stop();
  await node?.stop();
  await nats?.stop();
});

const refusals = (of = node) => of.stats()!.refusals;

/** A raw connection to the node's TLS port, and when it closes. */
function connectRaw(to = node): { socket: net.Socket; closed: Promise<void> } {
  const socket = net.connect(to.tlsPort!, '127.0.0.1');
  socket.on('error', () => undefined);
  return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve())) };
}

describe('RLY-6 a node’s TLS port before routing', () => {
  it('RLY-6 a ClientHello sent a byte at a time still routes to its desktop', async () => {
    const hello = await clientHelloFor(`${'b'.repeat(32)}.relay.localhost`);
    const { socket, closed } = connectRaw(patient);
    for (const byte of hello) {
      socket.write(Buffer.of(byte));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Routed: the node asked for the desktop, which is not linked, and closed the connection for that.
    await waitUntil(() => (refusals(patient).desktop_offline ?? 0) >= 1, 'the node asks for the desktop', 60_000);
    await closed;
    expect(refusals(patient).bad_client_hello).toBeUndefined();
    expect(refusals(patient).hello_timeout).toBeUndefined();
  }, 90_000);

  it('RLY-6 a client that sends nothing, or half a hello, is closed at the time limit', async () => {
    const hello = await clientHelloFor(`${'c'.repeat(32)}.relay.localhost`);
    const silent = connectRaw();
    const half = connectRaw();
    half.socket.write(hello.subarray(0, hello.length >> 1));
    await Promise.all([silent.closed, half.closed]);
    expect(refusals().hello_timeout).toBe(2);
    expect(refusals().desktop_offline).toBeUndefined();
  }, 30_000);

  it('RLY-6 a hello spread over too many records or past the byte cap is closed without waiting for the rest', async () => {
    // On the patient node: these are refused for what they are, not for taking too long.
    const fragments = connectRaw(patient);
    // A 16-byte hello that four records do not complete: it would span more records than a hello may.
    fragments.socket.write(Buffer.of(0x16, 0x03, 0x01, 0x00, 0x04, 0x01, 0x00, 0x00, 0x10));
    for (let i = 0; i < 4; i++) fragments.socket.write(Buffer.of(0x16, 0x03, 0x01, 0x00, 0x01, 0x03));
    const long = connectRaw(patient);
    // A hello that says it is 64 KiB long.
    long.socket.write(Buffer.of(0x16, 0x03, 0x01, 0x40, 0x00, 0x01, 0x00, 0xff, 0xff));
    long.socket.write(Buffer.alloc(MAX_CLIENT_HELLO_READ_BYTES));
    await Promise.all([fragments.closed, long.closed]);
    expect(refusals(patient).bad_client_hello).toBe(2);
    expect(refusals(patient).hello_timeout).toBeUndefined();
    expect(patient.stats()!.passthroughConnections).toBe(0);
  }, 30_000);
});
