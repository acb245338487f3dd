/**
 * The transport as the protocol sees it (STYLE: tldraw sync-core's socket adapter): `ws` hides
 * behind this in wsRpcSocket.ts, and unit tests use an in-memory pair.
 */
export interface RpcSocket {
  /** Bytes handed to `send` that the peer has not taken yet (still queued in this process). */
  readonly bufferedAmount: number;
  /** Sends one text frame (a string) or one binary frame (a Buffer); `sent` runs once it is written out. */
  send(data: string | Buffer, sent: () => void): void;
  /** A close frame; the socket then waits, for a bounded time, for the peer's. */
  close(code: number, reason: string): void;
  /** A close frame if it can still go out, and the connection dropped now: nothing more is read or held. */
  terminate(code: number, reason: string): void;
  /** Stops taking requests off the wire (the peer's sends back up in its own process). */
  pauseReading(): void;
  resumeReading(): void;
}
