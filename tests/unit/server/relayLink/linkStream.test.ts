import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CHANNEL_WINDOW_BYTES, decodeLinkFrame, LINK_FRAME, type LinkFrame } from '../../../../lib/relay/relayWire';
import { LinkStream } from '../../../../server/relayLink/linkStream';
import type { LinkSender, LinkWaiter } from '../../../../server/relayLink/linkWriter';

/** A link that records what it is given; `room` says whether it takes data now. */
class RecordingLink implements LinkSender {
  readonly frames: LinkFrame[] = [];
  room = true;
  readonly waiting = new Set<LinkWaiter>();
  hasRoom = () => this.room;
  sendControl(frame: Exclude<LinkFrame, { type: typeof LINK_FRAME.data }>): void {
    this.frames.push(frame);
  }
  sendData(frame: Uint8Array, written: () => void): void {
    this.frames.push(decodeLinkFrame(frame));
    written();
  }
  waitForRoom(waiter: LinkWaiter): void {
    this.waiting.add(waiter);
  }
  forget(waiter: LinkWaiter): void {
    this.waiting.delete(waiter);
  }
  of<T extends LinkFrame['type']>(type: T): Extract<LinkFrame, { type: T }>[] {
    return this.frames.filter((f): f is Extract<LinkFrame, { type: T }> => f.type === type);
  }
  dataBytes(): number {
    return this.of(LINK_FRAME.data).reduce((sum, f) => sum + f.payload.length, 0);
  }
}

const ID = 'node1.7';
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('RLY-6 a passthrough stream on the desktop (server/relayLink/linkStream.ts)', () => {
  it('RLY-6 RLY-4 writes go out as DATA under the window, wait for room, and go on as ACKs come', async () => {
    const link = new RecordingLink();
    let gone = false;
    const stream = new LinkStream(ID, link, () => (gone = true));
    const chunk = Buffer.alloc(1024 * 1024, 7);
    const chunks = Math.ceil(CHANNEL_WINDOW_BYTES / chunk.length) + 3;
    for (let i = 0; i < chunks; i++) stream.write(chunk);
    await flush();
    // At most a window is un-ACKed; the rest waits in the stream.
    expect(link.dataBytes()).toBeLessThanOrEqual(CHANNEL_WINDOW_BYTES);
    expect(link.dataBytes()).toBeGreaterThan(CHANNEL_WINDOW_BYTES - chunk.length);
    stream.acknowledged(link.dataBytes());
    await flush();
    expect(link.dataBytes()).toBe(chunks * chunk.length);
    // A full link: the stream waits for room and goes on when pumped.
    link.room = false;
    stream.write(Buffer.from('later'));
    await flush();
    expect(link.waiting.has(stream)).toBe(true);
    link.room = true;
    stream.pump();
    expect(Buffer.from(link.of(LINK_FRAME.data).at(-1)!.payload).toString()).toBe('later');
    expect(gone).toBe(false);
    stream.destroy();
  });

  it('RLY-6 RLY-4 received bytes are ACKed as the reader takes them, not while it does not read', async () => {
    const link = new RecordingLink();
    const stream = new LinkStream(ID, link, () => {});
    const big = new Uint8Array(64 * 1024);
    // Nobody reads: past the readable buffer's mark, ACKs stop.
    for (let i = 0; i < 8; i++) stream.deliver(big);
    const ackedBeforeReading = link.of(LINK_FRAME.ack).reduce((sum, f) => sum + f.bytes, 0);
    expect(ackedBeforeReading).toBeLessThan(8 * big.length);
    let read = 0;
    stream.on('data', (chunk: Buffer) => (read += chunk.length));
    await flush();
    expect(read).toBe(8 * big.length);
    expect(link.of(LINK_FRAME.ack).reduce((sum, f) => sum + f.bytes, 0)).toBe(8 * big.length);
    stream.destroy();
  });

  it('RLY-6 END is a half-close each way; CLOSE from the relay ends it without a CLOSE back; a destroy sends one', async () => {
    const link = new RecordingLink();
    let halfGone = false;
    const half = new LinkStream(ID, link, () => (halfGone = true));
    half.resume();
    const ended = once(half, 'end');
    half.remoteEnded();
    await ended;
    // Our side still writes after the client's half-close, then ends with END; with both halves
    // ended the node closes the connection, so no CLOSE crosses its.
    half.end('answer');
    await once(half, 'close');
    expect(link.frames.map((f) => f.type)).toEqual([LINK_FRAME.data, LINK_FRAME.end]);
    expect(halfGone).toBe(false);
    half.remoteClosed();
    expect(halfGone).toBe(true);

    const closedByRelay = new RecordingLink();
    let gone = false;
    const stream = new LinkStream(ID, closedByRelay, () => (gone = true));
    stream.remoteClosed();
    await once(stream, 'close');
    expect(gone).toBe(true);
    expect(closedByRelay.of(LINK_FRAME.close)).toEqual([]);

    const destroyed = new RecordingLink();
    const ours = new LinkStream(ID, destroyed, () => {});
    ours.destroy();
    await once(ours, 'close');
    expect(destroyed.of(LINK_FRAME.close).map((f) => f.connectionId)).toEqual([ID]);
  });
});
