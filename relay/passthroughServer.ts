import net from 'node:net';
import { MAX_CLIENT_HELLO_READ_BYTES, readClientHello } from '../lib/relay/clientHello';
import { DESKTOP_ID_PATTERN } from '../lib/relay/relayWire';
import type { RefusalKind } from './relayLog';

/** A client has this long to send its whole ClientHello before the node closes the connection. */
export const DEFAULT_HELLO_TIMEOUT_MS = 5_000;

/**
 * The desktop a TLS server name belongs to (RLY-6): `<desktopId>.HOST` (its app) or
 * `p-<desktopId>.HOST` (its one preview origin, ORG-3's shared mode); null for any other name.
 */
export function desktopForServerName(serverName: string, relayHost: string): string | null {
  const suffix = '.' + relayHost.toLowerCase();
  if (!serverName.endsWith(suffix)) return null;
  const label = serverName.slice(0, -suffix.length);
  const desktopId = label.startsWith('p-') ? label.slice(2) : label;
  return DESKTOP_ID_PATTERN.test(desktopId) ? desktopId : null;
}

export interface PassthroughServerOptions {
  /** The relay's host name (`--public-url`'s), under which each desktop has its names. */
  relayHost: string;
  helloTimeoutMs: number;
  /** Rate and capacity: false when the connection is not taken (it is then closed). */
  admit(socket: net.Socket): boolean;
  /** A ClientHello for a desktop's name: the socket and every byte read so far are the desktop's now. */
  route(socket: net.Socket, desktopId: string, hello: Buffer): void;
  refused(kind: RefusalKind, bytes?: number): void;
}

/**
 * The node's TLS port (RLY-6): reads each connection's ClientHello, at most
 * MAX_CLIENT_HELLO_READ_BYTES within `helloTimeoutMs`, and hands the connection to the desktop its
 * SNI name belongs to. Anything else (another name, no name, not TLS, too slow) is closed here
 * and never reaches a desktop.
 */
export function createPassthroughServer(options: PassthroughServerOptions): net.Server {
  // allowHalfOpen: a client's half-close crosses as END; the desktop's answer still goes back (RLY-6).
  return net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    socket.on('error', () => socket.destroy());
    if (!options.admit(socket)) {
      socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    const timer = setTimeout(() => refuse('hello_timeout'), options.helloTimeoutMs);
    const refuse = (kind: RefusalKind) => {
      stop();
      options.refused(kind, bytes);
      socket.destroy();
    };
    const stop = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
    };
    const onEnd = () => refuse('bad_client_hello');
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      bytes += chunk.length;
      const joined = Buffer.concat(chunks, bytes);
      const read = readClientHello(joined.subarray(0, MAX_CLIENT_HELLO_READ_BYTES));
      if (read.status === 'need-more') {
        // The reader refuses any hello longer than the cap, so this is a guard, not a limit it meets.
        if (bytes >= MAX_CLIENT_HELLO_READ_BYTES) refuse('bad_client_hello');
        return;
      }
      if (read.status === 'invalid') return refuse('bad_client_hello');
      const desktopId = read.serverName === null ? null : desktopForServerName(read.serverName, options.relayHost);
      if (desktopId === null) return refuse('unknown_name');
      stop();
      options.route(socket, desktopId, joined);
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
  });
}
