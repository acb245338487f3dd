import type net from 'node:net';
import { LINK_FRAME, MAX_CHANNEL_FRAME_BYTES, RELAY_CLOSE_CODES } from '../lib/relay/relayWire';
import type { RelayContext } from './relayContext';
import { RelayedConnection } from './relayedConnection';

/** How long a stream the desktop ended or closed gives its client to take the last bytes and close, before the socket is dropped. */
const CLOSE_FLUSH_MS = 5_000;

/**
 * One TLS connection to a desktop's relay name, passed through unread (RLY-6): the ClientHello
 * already read for routing and every byte after it go to the desktop as DATA, and the desktop's
 * bytes come back the same way. The node never holds a key for the name, so it sees only TLS
 * records, the SNI name and timing. Half-closes cross as END frames, both ways.
 */
export class PassthroughConnection extends RelayedConnection {
  private paused = false;
  private clientEnded = false;
  private desktopEnded = false;

  constructor(
    ctx: RelayContext,
    private readonly socket: net.Socket,
    id: string,
    desktopId: string,
    hello: Uint8Array,
    onClosed: (connection: RelayedConnection) => void,
  ) {
    super(ctx, id, desktopId, onClosed);
    socket.on('data', (chunk: Buffer) => this.fromClient(chunk));
    socket.on('end', () => this.clientEnd());
    socket.on('close', () => this.clientClosed(RELAY_CLOSE_CODES.goingAway, 'The client closed the connection.'));
    socket.on('error', () => socket.destroy());
    this.open();
    this.fromClient(hello);
  }

  private fromClient(chunk: Uint8Array): void {
    if (this.closed || chunk.length === 0) return;
    // Socket reads are at most 64 KiB; the bound only guards against a changed default.
    for (let offset = 0; offset < chunk.length; offset += MAX_CHANNEL_FRAME_BYTES)
      this.forwardToDesktop(chunk.subarray(offset, offset + MAX_CHANNEL_FRAME_BYTES));
  }

  private clientEnd(): void {
    if (this.closed) return;
    this.clientEnded = true;
    this.toDesktop({ type: LINK_FRAME.end, connectionId: this.id });
    if (this.desktopEnded) this.close(1000, 'Both sides ended the stream.', true);
  }

  /** The desktop is done sending: the client gets a while to finish too (a client that never does would hold the stream). */
  protected endFromDesktop(): void {
    this.desktopEnded = true;
    this.closeClient();
    if (this.clientEnded) this.close(1000, 'Both sides ended the stream.', true);
  }

  protected writeToClient(frame: Uint8Array, written: (error?: Error | null) => void): void {
    if (this.desktopEnded || this.socket.destroyed) {
      written(new Error('the stream is closed'));
      return;
    }
    // Counted in the node's budget until written (or failed: a destroyed socket fails what it still held).
    this.ctx.budget.add(frame.length);
    this.socket.write(frame, (error) => {
      this.ctx.budget.add(-frame.length);
      written(error);
    });
  }

  /** Over the budget: what is queued for the client is let go at once. */
  protected dropClient(): void {
    this.socket.destroy();
  }

  protected pauseClient(): void {
    this.paused = true;
    this.socket.pause();
  }

  protected resumeClient(): void {
    this.paused = false;
    this.socket.resume();
  }

  protected get clientPaused(): boolean {
    return this.paused;
  }

  /** What is queued goes out first; a client that never takes it is dropped after a while. */
  protected closeClient(): void {
    if (this.socket.destroyed || this.socket.writableEnded) return;
    this.socket.end();
    const timer = setTimeout(() => this.socket.destroy(), CLOSE_FLUSH_MS);
    timer.unref();
    this.socket.once('close', () => clearTimeout(timer));
  }
}
