/**
 * Reads the TLS ClientHello at the start of a connection (RFC 8446 §4.1.2, RFC 5246 §6.2.1) far
 * enough to route it (RLY-6): the SNI host name (RFC 6066 §3) and the ALPN protocols
 * (RFC 7301). Bounded and total: any input gives an answer, never an exception, and a peer that
 * declares more than MAX_CLIENT_HELLO_BYTES or spreads the hello over more than
 * MAX_CLIENT_HELLO_RECORDS records is refused before those bytes are awaited.
 */

/** TLSPlaintext.length may be at most 2^14 (RFC 8446 §5.1). */
export const MAX_TLS_RECORD_BYTES = 16 * 1024;
/** The hello's handshake body: real ones are under 2 KiB, with post-quantum key shares too. */
export const MAX_CLIENT_HELLO_BYTES = 16 * 1024;
/** Clients put the hello in one record; a few are allowed for those that fragment it. */
export const MAX_CLIENT_HELLO_RECORDS = 4;
/** The most bytes a reader may need to buffer before it can answer. */
export const MAX_CLIENT_HELLO_READ_BYTES = MAX_CLIENT_HELLO_RECORDS * 5 + MAX_CLIENT_HELLO_BYTES + 4;

const RECORD_HANDSHAKE = 22;
const HANDSHAKE_CLIENT_HELLO = 1;
const EXTENSION_SERVER_NAME = 0;
const EXTENSION_ALPN = 16;
const SERVER_NAME_HOST = 0;
/** A DNS name in ASCII (A-labels): letters, digits, hyphens, dots; at most 253 characters. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export type ClientHelloRead =
  | { status: 'need-more' }
  | { status: 'invalid'; reason: string }
  | {
      status: 'complete';
      /** The SNI host name, lowercased; null when the client sent none. */
      serverName: string | null;
      /** The ALPN protocols in the client's order (empty when it offered none). */
      alpn: string[];
    };

class Malformed extends Error {}

/** A cursor over the hello's body that throws Malformed past its end (caught below). */
class Reader {
  private offset = 0;

  private readonly end: number;

  constructor(readonly bytes: Uint8Array) {
    this.end = bytes.length;
  }

  get done(): boolean {
    return this.offset === this.end;
  }

  u8(): number {
    return this.take(1)[0]!;
  }

  u16(): number {
    const b = this.take(2);
    return (b[0]! << 8) | b[1]!;
  }

  take(length: number): Uint8Array {
    if (this.offset + length > this.end) throw new Malformed('a length runs past its enclosing field');
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  rest(): Uint8Array {
    return this.take(this.end - this.offset);
  }

  /** A vector with a `lengthBytes`-byte length prefix, as its own reader. */
  vector(lengthBytes: 1 | 2): Reader {
    const length = lengthBytes === 1 ? this.u8() : this.u16();
    return new Reader(this.take(length));
  }
}

/** Joins the handshake fragments of the leading records; an answer when the records say it cannot be a hello. */
function joinHandshakeRecords(bytes: Uint8Array): { body: Uint8Array } | ClientHelloRead {
  const fragments: Uint8Array[] = [];
  let joined = 0;
  let offset = 0;
  let needed: number | null = null;
  for (let records = 0; ; records++) {
    if (needed !== null && joined >= needed) break;
    if (records === MAX_CLIENT_HELLO_RECORDS) return { status: 'invalid', reason: 'the hello spans too many records' };
    if (bytes.length < offset + 5) return validPrefix(bytes, offset) ?? { status: 'need-more' };
    const type = bytes[offset]!;
    const length = (bytes[offset + 3]! << 8) | bytes[offset + 4]!;
    if (type !== RECORD_HANDSHAKE) return { status: 'invalid', reason: 'not a TLS handshake record' };
    if (bytes[offset + 1] !== 3) return { status: 'invalid', reason: 'not a TLS record version' };
    if (length === 0 || length > MAX_TLS_RECORD_BYTES)
      return { status: 'invalid', reason: 'a TLS record length out of range' };
    const available = Math.min(length, bytes.length - offset - 5);
    fragments.push(bytes.subarray(offset + 5, offset + 5 + available));
    joined += available;
    if (needed === null && joined >= 4) {
      const head = concat(fragments, 4);
      if (head[0] !== HANDSHAKE_CLIENT_HELLO)
        return { status: 'invalid', reason: 'the first handshake message is not a ClientHello' };
      const bodyLength = (head[1]! << 16) | (head[2]! << 8) | head[3]!;
      if (bodyLength > MAX_CLIENT_HELLO_BYTES) return { status: 'invalid', reason: 'the ClientHello is too large' };
      needed = 4 + bodyLength;
    }
    if (available < length) {
      // The record is cut short; its header already said everything there is to check.
      return needed !== null && joined >= needed
        ? { body: concat(fragments, needed).subarray(4) }
        : { status: 'need-more' };
    }
    offset += 5 + length;
  }
  return { body: concat(fragments, needed).subarray(4) };
}

/** A first record header cut short: refused as soon as its first bytes show it is not TLS. */
function validPrefix(bytes: Uint8Array, offset: number): ClientHelloRead | null {
  if (bytes.length > offset && bytes[offset] !== RECORD_HANDSHAKE)
    return { status: 'invalid', reason: 'not a TLS handshake record' };
  if (bytes.length > offset + 1 && bytes[offset + 1] !== 3)
    return { status: 'invalid', reason: 'not a TLS record version' };
  return null;
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    if (at >= length) break;
    const piece = part.subarray(0, length - at);
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

function ascii(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += String.fromCharCode(byte);
  return out;
}

function readServerName(data: Reader): string {
  const list = data.vector(2);
  if (!data.done) throw new Malformed('bytes after the server name list');
  let name: string | null = null;
  while (!list.done) {
    const type = list.u8();
    const value = list.vector(2);
    if (type !== SERVER_NAME_HOST) continue;
    if (name !== null) throw new Malformed('two host names');
    const text = ascii(value.rest()).toLowerCase();
    if (!HOST_NAME.test(text)) throw new Malformed('the server name is not a DNS host name');
    name = text;
  }
  if (name === null) throw new Malformed('a server_name extension without a host name');
  return name;
}

function readAlpn(data: Reader): string[] {
  const list = data.vector(2);
  if (!data.done) throw new Malformed('bytes after the ALPN list');
  const protocols: string[] = [];
  while (!list.done) {
    const protocol = list.vector(1);
    if (protocol.bytes.length === 0) throw new Malformed('an empty ALPN protocol name');
    protocols.push(ascii(protocol.rest()));
  }
  if (protocols.length === 0) throw new Malformed('an empty ALPN list');
  return protocols;
}

function parseBody(body: Uint8Array): ClientHelloRead {
  const hello = new Reader(body);
  hello.take(2 + 32); // legacy_version, random
  const sessionId = hello.vector(1);
  if (sessionId.bytes.length > 32) throw new Malformed('a session id over 32 bytes');
  const suites = hello.vector(2);
  if (suites.bytes.length < 2 || suites.bytes.length % 2 !== 0) throw new Malformed('malformed cipher suites');
  if (hello.vector(1).bytes.length < 1) throw new Malformed('no compression methods');
  let serverName: string | null = null;
  let alpn: string[] = [];
  if (hello.done) return { status: 'complete', serverName, alpn };
  const extensions = hello.vector(2);
  if (!hello.done) throw new Malformed('bytes after the extensions');
  const seen = new Set<number>();
  while (!extensions.done) {
    const type = extensions.u16();
    const data = extensions.vector(2);
    if (seen.has(type)) throw new Malformed('an extension sent twice');
    seen.add(type);
    if (type === EXTENSION_SERVER_NAME) serverName = readServerName(data);
    else if (type === EXTENSION_ALPN) alpn = readAlpn(data);
  }
  return { status: 'complete', serverName, alpn };
}

/** What the first bytes of a connection say, given everything received so far. */
export function readClientHello(bytes: Uint8Array): ClientHelloRead {
  const joined = joinHandshakeRecords(bytes);
  if (!('body' in joined)) return joined;
  try {
    return parseBody(joined.body);
  } catch (error) {
    if (error instanceof Malformed) return { status: 'invalid', reason: error.message };
    throw error;
  }
}
