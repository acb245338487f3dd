import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { decodeLinkFrame, LINK_FRAME } from '../../../../lib/relay/relayWire';
import { LinkStream } from '../../../../server/relayLink/linkStream';
import { LINK_HIGH_WATER_BYTES, LinkWriter } from '../../../../server/relayLink/linkWriter';
import { waitUntil } from '../../../fixtures/waitUntil';

const MiB = 1024 * 1024;
const STREAMS = 3;
const FRAMES_PER_STREAM = 6;
const FRAME_BYTES = 4 * MiB;

describe('RLY-4 the link socket to the relay', () => {
  let wss: WebSocketServer | null = null;
  afterEach(() => {
    for (const client of wss?.clients ?? []) client.terminate();
    wss?.close();
  });

  it('RLY-4 holds at most its high-water mark plus a frame however many streams send; the rest waits in the streams and goes once the relay reads', async () => {
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 64 * MiB });
    await new Promise((resolve) => wss!.once('listening', resolve));
    const received = new Map<string, number>();
    const relaySide = new Promise<WebSocket>((resolve) =>
      wss!.once('connection', (ws) => {
        // The relay stops reading: the link's frames back up in the desktop.
        ws.pause();
        ws.on('message', (data) => {
          const frame = decodeLinkFrame(data as Buffer);
          if (frame.type === LINK_FRAME.data)
            received.set(frame.connectionId, (received.get(frame.connectionId) ?? 0) + 1);
        });
        resolve(ws);
      }),
    );
    const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, { perMessageDeflate: false });
    await new Promise((resolve) => client.once('open', resolve));
    const relay = await relaySide;
    const writer = new LinkWriter(client);
    const streams = Array.from({ length: STREAMS }, (_, i) => new LinkStream(`n.${i + 1}`, writer, () => {}));
    let maxLinkBuffered = 0;
    const sample = setInterval(() => (maxLinkBuffered = Math.max(maxLinkBuffered, writer.bufferedAmount)), 5);
    for (const stream of streams)
      for (let f = 0; f < FRAMES_PER_STREAM; f++) stream.write(Buffer.alloc(FRAME_BYTES, f));
    const waitingLocally = () => streams.reduce((sum, stream) => sum + stream.writableLength, 0);
    await waitUntil(
      () => waitingLocally() > 0 && !writer.hasRoom(),
      () => `frames back up in the streams (link holds ${writer.bufferedAmount} bytes, streams ${waitingLocally()})`,
    );
    expect(writer.bufferedAmount).toBeLessThanOrEqual(LINK_HIGH_WATER_BYTES + FRAME_BYTES + 64);

    relay.resume();
    await waitUntil(
      () => [...received.values()].reduce((a, b) => a + b, 0) === STREAMS * FRAMES_PER_STREAM,
      () => `every frame reaches the relay (${JSON.stringify([...received])})`,
      60_000,
    );
    clearInterval(sample);
    expect([...received.values()]).toEqual(Array(STREAMS).fill(FRAMES_PER_STREAM));
    expect(maxLinkBuffered).toBeLessThanOrEqual(LINK_HIGH_WATER_BYTES + FRAME_BYTES + 64);
    expect(waitingLocally()).toBe(0);
    for (const stream of streams) stream.destroy();
    client.terminate();
  });
});
