import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_FRAME, RELAY_CLOSE_CODES, type LinkFrame } from '../../../lib/relay/relayWire';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { connectDevice, linkDesktop, openDevice, makeDesktopKeys } from '../../fixtures/relayClients';
import { startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { waitUntil } from '../../fixtures/waitUntil';

// RLY-1, RLY-4: a desktop linked to node 1 and a device on node 2 reach each other over NATS.
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

const isClose = (connectionId: string) => (f: LinkFrame): f is Extract<LinkFrame, { type: 3 }> => f.type === LINK_FRAME.close && f.connectionId === connectionId;

describe('two relay nodes over NATS', () => {
  it('routes OPEN, DATA both ways byte-exact (a 32 MiB frame too) and CLOSE', async () => {
    const desktop = await linkDesktop(nodes[0]!);
    const { device, connectionId } = await connectDevice(nodes[1]!, desktop);
    expect(connectionId.startsWith('node2.')).toBe(true);

    // device → desktop: small frames in order, then a 32 MiB one split over NATS.
    const small = Array.from({ length: 300 }, (_, i) => crypto.randomBytes(1 + (i % 50) * 37));
    for (const frame of small) device.ws.send(frame);
    const big = crypto.randomBytes(32 * 1024 * 1024);
    device.ws.send(big);
    const received = await waitUntil(() => {
      const data = desktop.dataFor(connectionId);
      return data.length === small.length + 1 && data;
    }, 'every device frame reaches the desktop', 90_000);
    received.slice(0, small.length).forEach((payload, i) => expect(Buffer.from(payload).equals(small[i]!)).toBe(true));
    expect(Buffer.from(received[small.length]!).equals(big)).toBe(true);

    // desktop → device: the same, with ACKs once written to the device.
    const down = Array.from({ length: 300 }, (_, i) => crypto.randomBytes(1 + (i % 40) * 53));
    for (const payload of down) desktop.send({ type: LINK_FRAME.data, connectionId, payload });
    const bigDown = crypto.randomBytes(32 * 1024 * 1024);
    desktop.send({ type: LINK_FRAME.data, connectionId, payload: bigDown });
    await waitUntil(() => device.binaries.length === down.length + 1, 'every desktop frame reaches the device', 90_000);
    device.binaries.slice(0, down.length).forEach((payload, i) => expect(payload.equals(down[i]!)).toBe(true));
    expect(device.binaries[down.length]!.equals(bigDown)).toBe(true);
    const total = down.reduce((sum, p) => sum + p.length, 0) + bigDown.length;
    await waitUntil(() => desktop.ackedFor(connectionId) === total, 'the device node ACKs every byte written to the device', 60_000);

    // device → desktop ACKs let the device go on; CLOSE from the desktop closes the device's socket.
    desktop.send({ type: LINK_FRAME.close, connectionId, code: 4401, reason: 'not paired' });
    expect(await device.closed).toEqual({ code: 4401, reason: 'not paired' });

    // CLOSE from the device reaches the desktop.
    const second = await connectDevice(nodes[1]!, desktop);
    second.device.ws.close(1000, 'bye');
    const close = await desktop.waitFor(isClose(second.connectionId), 'the device’s close reaches the desktop');
    expect(close.code).toBe(1000);
    desktop.socket.ws.close();
  }, 180_000);

  it('closes a device 4404 when its desktop is not linked, 4404 for a malformed id', async () => {
    const offline = openDevice(nodes[1]!, makeDesktopKeys().desktopId);
    expect((await offline.closed).code).toBe(RELAY_CLOSE_CODES.desktopOffline);
    const malformed = openDevice(nodes[1]!, 'NOT-A-DESKTOP');
    expect((await malformed.closed).code).toBe(RELAY_CLOSE_CODES.desktopOffline);
    expect(nodes[1]!.stats()!.refusals.bad_desktop_id).toBeGreaterThanOrEqual(1);
    expect(nodes[1]!.stats()!.refusals.desktop_offline).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('closes the devices 4502 when their desktop’s link drops', async () => {
    const desktop = await linkDesktop(nodes[0]!);
    const one = await connectDevice(nodes[1]!, desktop);
    const two = await connectDevice(nodes[0]!, desktop);
    desktop.socket.ws.terminate();
    expect((await one.device.closed).code).toBe(RELAY_CLOSE_CODES.desktopGone);
    expect((await two.device.closed).code).toBe(RELAY_CLOSE_CODES.desktopGone);
  }, 60_000);

  it('a new registration of the desktop takes over: the old link 4409, its devices 4502, new devices reach the new link', async () => {
    const keys = makeDesktopKeys();
    const first = await linkDesktop(nodes[0]!, keys);
    const old = await connectDevice(nodes[1]!, first);
    const second = await linkDesktop(nodes[1]!, keys);
    expect((await first.socket.closed).code).toBe(RELAY_CLOSE_CODES.replaced);
    expect((await old.device.closed).code).toBe(RELAY_CLOSE_CODES.desktopGone);
    const fresh = await connectDevice(nodes[0]!, second);
    fresh.device.ws.send(Buffer.from('hello'));
    await waitUntil(() => second.dataFor(fresh.connectionId).length === 1, 'a new device reaches the new link');
    expect(first.frames().some((f) => f.connectionId === fresh.connectionId)).toBe(false);
    second.socket.ws.close();
  }, 60_000);
});
