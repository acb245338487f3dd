import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { decodeLinkFrame, LINK_FRAME } from '../../../../lib/relay/relayWire';
import { ChannelSocket } from '../../../../server/relayLink/channelSocket';
import { LINK_HIGH_WATER_BYTES, LinkWriter } from '../../../../server/relayLink/linkWriter';
import { channelCiphers } from '../../../fixtures/channelPair';
import { waitUntil } from '../../../fixtures/waitUntil';

const MiB = 1024 * 1024;
const CHANNELS = 3;
const FRAMES_PER_CHANNEL = 6;
const FRAME_BYTES = 4 * MiB;

describe('RLY-4 the link socket to the relay', () => {
  let wss: WebSocketServer | null = null;
  afterEach(() => {
    for (const client of wss?.clients ?? []) client.terminate();
    wss?.close();
  });

  it('RLY-4 holds at most its high-water mark plus a frame however many channels send; the rest waits in the channels and goes once the relay reads', async () => {
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 64 * MiB });
    await new Promise((resolve) => wss!.once('listening', resolve));
    const received = new Map<string, number>();
    const relaySide = new Promise<WebSocket>((resolve) =>
      wss!.once('connection', (ws) => {
        // The relay stops reading: the link's frames back up in the desktop.
        ws.pause();
        ws.on('message', (data) => {
          const frame = decodeLinkFrame(data as Buffer);
          if (frame.type === LINK_FRAME.data) received.set(frame.connectionId, (received.get(frame.connectionId) ?? 0) + 1);
        });
        resolve(ws);
      }),
    );
    const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, { perMessageDeflate: false });
    await new Promise((resolve) => client.once('open', resolve));
    const relay = await relaySide;
    const writer = new LinkWriter(client);
    const sockets = await Promise.all(
      Array.from({ length: CHANNELS }, async (_, i) => new ChannelSocket(`n.${i + 1}`, (await channelCiphers()).desktop, writer, { receive() {}, dropped() {}, ended() {} })),
    );
    let maxLinkBuffered = 0;
    const sample = setInterval(() => (maxLinkBuffered = Math.max(maxLinkBuffered, writer.bufferedAmount)), 5);
    for (const socket of sockets) for (let f = 0; f < FRAMES_PER_CHANNEL; f++) socket.send(Buffer.alloc(FRAME_BYTES, f), () => {});
    const sealedTotal = CHANNELS * FRAMES_PER_CHANNEL * (FRAME_BYTES + 25);
    const waitingLocally = () => sockets.reduce((sum, socket) => sum + socket.bufferedAmount - socket.unackedByRelay, 0);
    await waitUntil(
      () => sockets.reduce((sum, socket) => sum + socket.bufferedAmount, 0) === sealedTotal && waitingLocally() > 0 && !writer.hasRoom(),
      () => `frames back up in the channels (link holds ${writer.bufferedAmount} bytes, channels ${waitingLocally()})`,
    );
    expect(writer.bufferedAmount).toBeLessThanOrEqual(LINK_HIGH_WATER_BYTES + FRAME_BYTES + 64);

    relay.resume();
    await waitUntil(() => [...received.values()].reduce((a, b) => a + b, 0) === CHANNELS * FRAMES_PER_CHANNEL, () => `every frame reaches the relay (${JSON.stringify([...received])})`, 60_000);
    clearInterval(sample);
    expect([...received.values()]).toEqual(Array(CHANNELS).fill(FRAMES_PER_CHANNEL));
    expect(maxLinkBuffered).toBeLessThanOrEqual(LINK_HIGH_WATER_BYTES + FRAME_BYTES + 64);
    expect(waitingLocally()).toBe(0);
    client.terminate();
  });
});
