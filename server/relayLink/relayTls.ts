import fs from 'node:fs';
import type http from 'node:http';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import { MAX_CLIENT_HELLO_READ_BYTES, readClientHello } from '../../lib/relay/clientHello';
import type { Logger } from '../runtime/log';

/** The ALPN protocol of ACME's TLS-ALPN challenge (RFC 8737). */
export const ACME_TLS_ALPN = 'acme-tls/1';
/** A TLS client through the relay has this long to finish its handshake. */
const TLS_HANDSHAKE_TIMEOUT_MS = 15_000;

/**
 * Where the certificates for this desktop's relay names come from (RLY-6): files given on the
 * command line, or an ACME client. The private keys stay on the desktop.
 */
export interface RelayCertificates {
  /** The context for one of this desktop's names (its app or preview origin), or null for any other. */
  contextFor(serverName: string): tls.SecureContext | null;
  /**
   * The hook for ACME's TLS-ALPN challenge (RFC 8737): while a challenge for `serverName` is pending, the
   * context holding its challenge certificate; null otherwise (the connection is closed).
   */
  alpnChallengeFor?(serverName: string): tls.SecureContext | null;
  /**
   * Starts what keeps them current (an ACME client): called once the link to the relay is up, since
   * the CA's validation reaches the desktop only through it.
   */
  start?(): void;
  /** Stops what keeps them current (an ACME client's renewal timer), at shutdown. */
  stop?(): void;
}

/** `--relay-cert` and `--relay-key`: one PEM certificate chain (for both names, or a wildcard) and its key. */
export function certificateFiles(certPath: string, keyPath: string, names: readonly string[]): RelayCertificates {
  let context: tls.SecureContext;
  try {
    context = tls.createSecureContext({ cert: fs.readFileSync(certPath), key: fs.readFileSync(keyPath) });
  } catch (error) {
    throw new Error(
      `--relay-cert and --relay-key must be a readable PEM certificate and its private key: ${(error as Error).message}`,
    );
  }
  const served = new Set(names.map((name) => name.toLowerCase()));
  return { contextFor: (serverName) => (served.has(serverName) ? context : null) };
}

/** The context a hello gets: the ACME challenge's for `acme-tls/1`, else the name's own; null closes the connection. */
export function chooseSecureContext(
  certificates: RelayCertificates,
  serverName: string | null,
  alpn: readonly string[],
): { context: tls.SecureContext; acme: boolean } | null {
  if (serverName === null) return null;
  if (alpn.includes(ACME_TLS_ALPN)) {
    const context = certificates.alpnChallengeFor?.(serverName) ?? null;
    return context ? { context, acme: true } : null;
  }
  const context = certificates.contextFor(serverName);
  return context ? { context, acme: false } : null;
}

/**
 * Terminates TLS on a passthrough stream (RLY-6): reads the ClientHello (without taking it off
 * the stream) to choose the secure context by SNI and ALPN, then hands the decrypted socket to
 * `server`, the HTTP server of the relay names, once the handshake is done.
 */
export function terminateRelayTls(
  stream: Duplex,
  certificates: RelayCertificates,
  server: http.Server,
  log: Logger,
): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const timer = setTimeout(() => stream.destroy(), TLS_HANDSHAKE_TIMEOUT_MS);
  timer.unref();
  stream.on('error', () => stream.destroy());
  stream.once('close', () => clearTimeout(timer));
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    bytes += chunk.length;
    const joined = Buffer.concat(chunks, bytes);
    const read = readClientHello(joined.subarray(0, MAX_CLIENT_HELLO_READ_BYTES));
    if (read.status === 'need-more' && bytes < MAX_CLIENT_HELLO_READ_BYTES) return;
    stream.off('data', onData);
    stream.pause();
    const chosen = read.status === 'complete' ? chooseSecureContext(certificates, read.serverName, read.alpn) : null;
    if (!chosen) {
      log.warn('closing a relay TLS connection: no certificate for it', {
        serverName: read.status === 'complete' ? read.serverName : null,
      });
      stream.destroy();
      return;
    }
    stream.unshift(joined);
    const socket = new tls.TLSSocket(stream, {
      isServer: true,
      secureContext: chosen.context,
      ALPNProtocols: chosen.acme ? [ACME_TLS_ALPN] : ['http/1.1'],
    });
    socket.on('error', () => socket.destroy());
    socket.once('close', () => stream.destroy());
    socket.once('secure', () => {
      clearTimeout(timer);
      // The ACME server only checks the certificate; nothing is served on a challenge connection.
      if (chosen.acme) socket.end();
      else server.emit('connection', socket);
    });
  };
  stream.on('data', onData);
}
