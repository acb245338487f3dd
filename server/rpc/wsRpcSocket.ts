import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { RpcSocket } from './rpcSocket';

/** What the adapter tells its connection: frames, raw byte counts, and the end. */
export interface SocketListener {
  receive(data: Buffer, isBinary: boolean): Promise<void>;
  countIncomingBytes(n: number): void;
  detach(): void;
}

/** `ws` behind the RpcSocket interface. */
export function wsRpcSocket(ws: WebSocket): RpcSocket {
  return {
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
    send: (data, sent) => ws.send(data, { binary: typeof data !== 'string' }, () => sent()),
    close: (code, reason) => ws.close(code, reason),
    terminate(code, reason) {
      // The close frame is written before the socket goes, so a peer that reads can learn why.
      ws.close(code, reason);
      ws.terminate();
    },
    pauseReading: () => ws.pause(),
    resumeReading: () => ws.resume(),
  };
}

/**
 * Feeds one connection from `ws`; `wire` is the TCP socket under it, where bytes are counted. The byte counter listens on the TCP socket after `ws` has
 * taken each chunk, so a frame that completed `auth.hello` in that chunk is already counted as
 * authenticated (frames are delivered synchronously) and pipelined calls behind it are not charged.
 */
export function listenToWs(
  ws: WebSocket,
  wire: Duplex,
  listener: SocketListener,
  onError: (error: Error) => void,
): void {
  wire.on('data', (chunk: Buffer) => listener.countIncomingBytes(chunk.length));
  ws.on('message', (data, isBinary) => {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    void listener.receive(bytes, isBinary);
  });
  ws.on('close', () => listener.detach());
  ws.on('error', onError);
}
