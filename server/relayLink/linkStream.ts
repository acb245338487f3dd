import { Duplex } from 'node:stream';
import { CHANNEL_WINDOW_BYTES, encodeLinkFrame, LINK_FRAME } from '../../lib/relay/relayWire';
import type { LinkSender, LinkWaiter } from './linkWriter';

interface Queued {
  chunk: Buffer;
  done: (error?: Error | null) => void;
}

/**
 * One TLS passthrough connection (RLY-6) as a byte stream: DATA link frames in, DATA out, under
 * the same per-connection window as channels (RLY-4). Received bytes are ACKed as the reader takes
 * them, so a TLS socket that stops reading stops the client too; writes wait while a window is
 * un-ACKed or the link is full. END is a half-close each way, CLOSE the end of both.
 */
export class LinkStream extends Duplex implements LinkWaiter {
  private readonly queue: Queued[] = [];
  private unacked = 0;
  /** Bytes pushed while the reader's buffer was full: ACKed once it asks for more. */
  private ackOwed = 0;
  private ending: (() => void) | null = null;
  private sentEnd = false;
  private receivedEnd = false;
  private gone = false;

  constructor(
    readonly connectionId: string,
    private readonly writer: LinkSender,
    private readonly onGone: () => void,
  ) {
    super({ allowHalfOpen: true });
  }

  /** DATA from the client. */
  deliver(payload: Uint8Array): void {
    if (this.gone) return;
    if (this.push(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength))) this.ack(payload.length);
    else this.ackOwed += payload.length;
  }

  /** The relay delivered `bytes` more of our DATA to the client. */
  acknowledged(bytes: number): void {
    this.unacked = Math.max(0, this.unacked - bytes);
    this.pump();
  }

  /** END: the client sends no more. */
  remoteEnded(): void {
    if (this.gone) return;
    this.receivedEnd = true;
    this.push(null);
  }

  /** CLOSE, or the link dropped: nothing more goes either way. */
  remoteClosed(): void {
    if (this.gone) return;
    this.forget();
    this.destroy();
  }

  override _read(): void {
    if (this.ackOwed === 0 || this.gone) return;
    const owed = this.ackOwed;
    this.ackOwed = 0;
    this.ack(owed);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (chunk.length === 0) return done();
    this.queue.push({ chunk, done });
    this.pump();
  }

  override _final(done: () => void): void {
    this.ending = done;
    this.pump();
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    if (this.gone) {
      // Closed by the relay: nothing to tell it.
    } else if (this.sentEnd && this.receivedEnd) {
      // Both halves ended: the node closes the connection itself and says so; a CLOSE now would cross its.
      this.writer.forget(this);
    } else {
      this.writer.sendControl({
        type: LINK_FRAME.close,
        connectionId: this.connectionId,
        code: 1000,
        reason: 'The desktop closed the stream.',
      });
      this.forget();
    }
    for (const queued of this.queue.splice(0)) queued.done(new Error('The stream closed.'));
    done(error);
  }

  pump(): void {
    if (this.gone) return;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      if (this.unacked + next.chunk.length > CHANNEL_WINDOW_BYTES) return;
      if (!this.writer.hasRoom()) {
        this.writer.waitForRoom(this);
        return;
      }
      this.queue.shift();
      this.unacked += next.chunk.length;
      this.writer.sendData(
        encodeLinkFrame({ type: LINK_FRAME.data, connectionId: this.connectionId, payload: next.chunk }),
        () => {},
      );
      next.done();
    }
    if (this.ending) {
      const ended = this.ending;
      this.ending = null;
      this.sentEnd = true;
      this.writer.sendControl({ type: LINK_FRAME.end, connectionId: this.connectionId });
      ended();
    }
  }

  private ack(bytes: number): void {
    this.writer.sendControl({ type: LINK_FRAME.ack, connectionId: this.connectionId, bytes });
  }

  private forget(): void {
    this.gone = true;
    this.writer.forget(this);
    this.onGone();
  }
}
