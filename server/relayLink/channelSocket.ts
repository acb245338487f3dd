import { FRAME_KIND, type ChannelCipher } from '../../lib/relay/channelCipher';
import { CHANNEL_WINDOW_BYTES, encodeLinkFrame, LINK_FRAME, linkDataHeaderBytes, writeLinkDataHeader } from '../../lib/relay/relayWire';
import type { RpcSocket } from '../rpc/rpcSocket';
import type { LinkSender, LinkWaiter } from './linkWriter';

import { DEFAULT_SOCKET_LIMITS } from '../rpc/socketLimits';

/** What a channel socket hands on: opened frames, and its end. */
export interface ChannelEvents {
  receive(data: Buffer, isBinary: boolean): void;
  /** A frame that did not open (forged, replayed, malformed) was dropped; the channel goes on. */
  dropped(): void;
  /** The channel is gone (either side closed it, or the link dropped); nothing more is sent or received. */
  ended(): void;
}

interface Pending {
  bytes: number;
  sent: () => void;
}

/** A DATA link frame ready for the link: `bytes` is its channel frame's length, what windows count. */
interface Queued {
  frame: Uint8Array;
  bytes: number;
  sent: () => void;
  /** The link has written the frame: its buffer may serve again. */
  written: () => void;
}

/**
 * One device's connection through the relay as an RpcSocket (RLY-3): frames are sealed into DATA
 * link frames, at most CHANNEL_WINDOW_BYTES of them un-ACKed by the relay (RLY-4); the rest waits
 * here, and all of it counts in `bufferedAmount`, so the runtime's own backpressure (SEC-9) works
 * unchanged. Received frames are ACKed once handed on, and not while reading is paused.
 */
export class ChannelSocket implements RpcSocket, LinkWaiter {
  /** Frames given to `send` whose sealing has not finished. */
  private sealingBytes = 0;
  private readonly queue: Queued[] = [];
  private readonly headerBytes: number;
  private queuedBytes = 0;
  /** Sent to the relay, not yet ACKed, oldest first. */
  private readonly unacked: Pending[] = [];
  private unackedBytes = 0;
  private paused = false;
  private ackOwed = 0;
  private closing: { code: number; reason: string; timer: NodeJS.Timeout } | null = null;
  private ended = false;
  private received: Promise<void> = Promise.resolve();

  constructor(
    readonly connectionId: string,
    private readonly cipher: ChannelCipher,
    private readonly writer: LinkSender,
    private readonly events: ChannelEvents,
    /** A polite close waits this long for queued answers to go out, like `ws` waits for the peer's close frame. */
    private readonly closeDrainMs = DEFAULT_SOCKET_LIMITS.channelCloseDrainMs,
  ) {
    this.headerBytes = linkDataHeaderBytes(connectionId);
  }

  get bufferedAmount(): number {
    return this.sealingBytes + this.queuedBytes + this.unackedBytes;
  }

  get unackedByRelay(): number {
    return this.unackedBytes;
  }

  send(data: string | Buffer, sent: () => void): void {
    if (this.ended) {
      setImmediate(sent);
      return;
    }
    const isText = typeof data === 'string';
    const bytes = isText ? Buffer.from(data, 'utf8') : data;
    this.sealingBytes += bytes.length;
    // Sealed straight into a DATA link frame, after room for its header. Seals resolve in call
    // order, so frames keep the order they were sent in.
    void this.cipher.seal(isText ? FRAME_KIND.text : FRAME_KIND.binary, bytes, this.headerBytes).then((frame) => {
      this.sealingBytes -= bytes.length;
      if (this.ended) {
        sent();
        return;
      }
      writeLinkDataHeader(frame, this.connectionId);
      this.enqueue({ frame, bytes: frame.length - this.headerBytes, sent, written: () => this.cipher.release(frame) });
    });
  }

  /** Handshake message 2 goes first, as a DATA frame the relay ACKs like any other. */
  sendHandshake(message2: Uint8Array): void {
    this.enqueue({ frame: encodeLinkFrame({ type: LINK_FRAME.data, connectionId: this.connectionId, payload: message2 }), bytes: message2.length, sent: () => {}, written: () => {} });
  }

  private enqueue(queued: Queued): void {
    this.queue.push(queued);
    this.queuedBytes += queued.bytes;
    this.pump();
  }

  pump(): void {
    if (this.ended) return;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      // A frame is at most MAX_CHANNEL_FRAME_BYTES, less than the window: it always fits once ACKs come.
      if (this.unackedBytes + next.bytes > CHANNEL_WINDOW_BYTES) return;
      if (!this.writer.hasRoom()) {
        this.writer.waitForRoom(this);
        return;
      }
      this.queue.shift();
      this.queuedBytes -= next.bytes;
      this.unacked.push({ bytes: next.bytes, sent: next.sent });
      this.unackedBytes += next.bytes;
      this.writer.sendData(next.frame, next.written);
    }
    if (this.closing && this.sealingBytes === 0) this.finish(this.closing.code, this.closing.reason);
  }

  /** The relay delivered `bytes` more of our DATA to the device. */
  acknowledged(bytes: number): void {
    let left = Math.min(bytes, this.unackedBytes);
    this.unackedBytes -= left;
    while (left > 0 && this.unacked.length > 0) {
      const oldest = this.unacked[0]!;
      const taken = Math.min(left, oldest.bytes);
      oldest.bytes -= taken;
      left -= taken;
      if (oldest.bytes === 0) {
        this.unacked.shift();
        oldest.sent();
      }
    }
    this.pump();
  }

  /** A DATA frame from the device: opened in order, handed on, then ACKed (unless reading is paused). */
  deliver(payload: Uint8Array): void {
    if (this.ended) return;
    const opening = this.cipher.open(payload);
    this.received = this.received.then(async () => {
      const opened = await opening;
      if (this.ended) return;
      if (opened) this.events.receive(Buffer.from(opened.data.buffer, opened.data.byteOffset, opened.data.byteLength), opened.kind === FRAME_KIND.binary);
      else this.events.dropped();
      // A dropped frame is ACKed too: the relay's window counts it, and the channel goes on.
      this.ack(payload.length);
    });
  }

  private ack(bytes: number): void {
    if (this.paused) {
      this.ackOwed += bytes;
      return;
    }
    this.writer.sendControl({ type: LINK_FRAME.ack, connectionId: this.connectionId, bytes });
  }

  pauseReading(): void {
    this.paused = true;
  }

  resumeReading(): void {
    this.paused = false;
    if (this.ackOwed > 0 && !this.ended) {
      const owed = this.ackOwed;
      this.ackOwed = 0;
      this.writer.sendControl({ type: LINK_FRAME.ack, connectionId: this.connectionId, bytes: owed });
    }
  }

  /** The queued answers go first, then CLOSE; a device that never takes them is dropped after a while. */
  close(code: number, reason: string): void {
    if (this.ended || this.closing) return;
    const timer = setTimeout(() => this.terminate(code, reason), this.closeDrainMs);
    timer.unref();
    this.closing = { code, reason, timer };
    this.pump();
  }

  terminate(code: number, reason: string): void {
    if (!this.ended) this.finish(code, reason);
  }

  /** The device went (the relay's CLOSE) or the link dropped. */
  remoteEnded(): void {
    if (!this.ended) this.end();
  }

  private finish(code: number, reason: string): void {
    this.writer.sendControl({ type: LINK_FRAME.close, connectionId: this.connectionId, code, reason });
    this.end();
  }

  private end(): void {
    this.ended = true;
    if (this.closing) clearTimeout(this.closing.timer);
    this.writer.forget(this);
    // Like `ws`, every send's callback runs, so pooled answer buffers go back (BinaryReply).
    const callbacks = [...this.queue.map((q) => q.sent), ...this.unacked.map((u) => u.sent)];
    this.queue.length = 0;
    this.unacked.length = 0;
    this.queuedBytes = 0;
    this.unackedBytes = 0;
    for (const sent of callbacks) sent();
    this.events.ended();
  }
}
