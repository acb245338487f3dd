import type { Duplex } from 'node:stream';

/** Answers on a raw socket (no response object exists), then drops the connection: the client may never close its side. */
export function answerAndClose(
  socket: Duplex,
  status: number,
  reason: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n${lines.join('')}\r\n`, () =>
    socket.destroy(),
  );
}
