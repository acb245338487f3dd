import { describe, expect, it } from 'vitest';
import { FRAME_KIND, type ChannelCipher } from '../../../../lib/relay/channelCipher';
import { CHANNEL_WINDOW_BYTES, decodeLinkFrame, LINK_FRAME, type LinkFrame } from '../../../../lib/relay/relayWire';
import { ChannelSocket } from '../../../../server/relayLink/channelSocket';
import type { LinkSender, LinkWaiter } from '../../../../server/relayLink/linkWriter';
import { channelCiphers } from '../../../fixtures/channelPair';
import { waitUntil } from '../../../fixtures/waitUntil';

const MiB = 1024 * 1024;

/** A link the test controls: room or not, and what was written. */
class FakeLink implements LinkSender {
  room = true;
  readonly data: Uint8Array[] = [];
  readonly control: LinkFrame[] = [];
  private readonly waiting = new Set<LinkWaiter>();
  hasRoom = () => this.room;
  sendControl(frame: Exclude<LinkFrame, { type: typeof LINK_FRAME.data }>): void {
    this.control.push(frame);
  }
  /** Keeps each DATA frame's channel frame, as the relay would forward it. */
  sendData(frame: Uint8Array, written: () => void): void {
    const decoded = decodeLinkFrame(frame);
    if (decoded.type !== LINK_FRAME.data) throw new Error('sendData carries DATA frames only');
    this.data.push(Uint8Array.from(decoded.payload));
    written();
  }
  waitForRoom(waiter: LinkWaiter): void {
    this.waiting.add(waiter);
  }
  forget(waiter: LinkWaiter): void {
    this.waiting.delete(waiter);
  }
  makeRoom(): void {
    this.room = true;
    for (const waiter of [...this.waiting]) {
      this.waiting.delete(waiter);
      waiter.pump();
    }
  }
  get dataBytes(): number {
    return this.data.reduce((sum, frame) => sum + frame.length, 0);
  }
}

function channel(cipher: ChannelCipher, link: FakeLink, received: { data: Buffer; isBinary: boolean }[] = []) {
  let ended = 0;
  let dropped = 0;
  const socket = new ChannelSocket('n.1', cipher, link, {
    receive: (data, isBinary) => received.push({ data, isBinary }),
    dropped: () => dropped++,
    ended: () => ended++,
  });
  return { socket, ended: () => ended, dropped: () => dropped };
}

describe('RLY-3 RLY-4 the channel socket', () => {
  it('RLY-4 never has more than the window un-ACKed; the rest waits and counts in bufferedAmount; ACKs release it in order', async () => {
    const { desktop, device } = await channelCiphers();
    const link = new FakeLink();
    const { socket } = channel(desktop, link);
    const sent: number[] = [];
    const frames = Array.from({ length: 12 }, (_, i) => Buffer.alloc(4 * MiB, i));
    frames.forEach((frame, i) => socket.send(frame, () => sent.push(i)));
    expect(socket.bufferedAmount).toBeGreaterThanOrEqual(48 * MiB);
    await waitUntil(() => link.data.length === Math.floor(CHANNEL_WINDOW_BYTES / (4 * MiB + 25)) && socket.bufferedAmount === 48 * MiB + 12 * 25, 'the window fills and the rest is sealed');
    expect(link.dataBytes).toBeLessThanOrEqual(CHANNEL_WINDOW_BYTES);
    expect(socket.unackedByRelay).toBe(link.dataBytes);
    expect(sent).toEqual([]);
    socket.acknowledged(link.data[0]!.length + link.data[1]!.length);
    expect(sent).toEqual([0, 1]);
    socket.acknowledged(link.dataBytes);
    await waitUntil(() => link.data.length === frames.length, 'every frame goes once ACKs come');
    socket.acknowledged(CHANNEL_WINDOW_BYTES);
    expect(sent).toEqual(frames.map((_, i) => i));
    expect(socket.bufferedAmount).toBe(0);
    for (const [i, frame] of link.data.entries()) {
      const opened = await device.open(frame);
      expect(opened?.kind).toBe(FRAME_KIND.binary);
      expect(Buffer.from(opened!.data).equals(frames[i]!)).toBe(true);
    }
  });

  it('RLY-4 waits for room on the link, and a polite close sends what is queued before CLOSE', async () => {
    const { desktop } = await channelCiphers();
    const link = new FakeLink();
    link.room = false;
    const { socket, ended } = channel(desktop, link);
    socket.send('{"a":1}', () => {});
    socket.send('{"a":2}', () => {});
    socket.close(4401, 'bye');
    // Sealed, each frame has 25 bytes more: nonce, kind byte and tag.
    await waitUntil(() => socket.bufferedAmount === 2 * (7 + 25), 'both frames are sealed and queued');
    expect(link.data).toHaveLength(0);
    expect(ended()).toBe(0);
    link.makeRoom();
    expect(link.data).toHaveLength(2);
    expect(link.control.at(-1)).toMatchObject({ type: LINK_FRAME.close, code: 4401, reason: 'bye' });
    expect(ended()).toBe(1);
  });

  it('RLY-2 RLY-3 received frames open in order and are ACKed; forged and replayed ones are dropped and ACKed; paused, ACKs wait', async () => {
    const { desktop, device } = await channelCiphers();
    const link = new FakeLink();
    const received: { data: Buffer; isBinary: boolean }[] = [];
    const { socket, dropped } = channel(desktop, link, received);
    const first = await device.seal(FRAME_KIND.text, new TextEncoder().encode('one'));
    const second = await device.seal(FRAME_KIND.binary, Uint8Array.of(1, 2, 3));
    const acked = () => link.control.reduce((sum, f) => sum + (f.type === LINK_FRAME.ack ? f.bytes : 0), 0);
    socket.deliver(first);
    socket.deliver(first);
    socket.deliver(Uint8Array.from(second, (b, i) => (i === second.length - 1 ? b ^ 1 : b)));
    await waitUntil(() => acked() === first.length * 2 + second.length, 'the genuine, replayed and forged frames are all ACKed');
    expect(received).toHaveLength(1);
    expect(dropped()).toBe(2);
    socket.pauseReading();
    socket.deliver(second);
    await waitUntil(() => received.length === 2, 'the next genuine frame still opens');
    expect(received.map((r) => [r.data.toString('latin1'), r.isBinary])).toEqual([
      ['one', false],
      ['\x01\x02\x03', true],
    ]);
    expect(acked()).toBe(first.length * 2 + second.length);
    socket.resumeReading();
    expect(acked()).toBe(first.length * 2 + second.length * 2);
  });

  it('RLY-3 when the link drops, every send callback still runs and the socket ends', async () => {
    const { desktop } = await channelCiphers();
    const link = new FakeLink();
    const { socket, ended } = channel(desktop, link);
    let callbacks = 0;
    socket.send(Buffer.alloc(10), () => callbacks++);
    await waitUntil(() => link.data.length === 1, 'the frame goes out');
    socket.remoteEnded();
    expect(callbacks).toBe(1);
    expect(ended()).toBe(1);
    expect(link.control.some((f) => f.type === LINK_FRAME.close)).toBe(false);
  });
});
