import net from 'node:net';
import tls from 'node:tls';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_CLIENT_HELLO_READ_BYTES, readClientHello } from '../../../lib/relay/clientHello';
import { propertyRuns } from '../../fixtures/propertyRuns';

/** The first bytes Node's own TLS client sends with these options: a real ClientHello. */
async function captureClientHello(options: tls.ConnectionOptions): Promise<Buffer> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const received = new Promise<Buffer>((resolve) => {
    server.once('connection', (socket) => {
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        const bytes = Buffer.concat(chunks);
        if (readClientHello(bytes).status !== 'need-more') {
          socket.destroy();
          resolve(bytes);
        }
      });
    });
  });
  const client = tls.connect({ host: '127.0.0.1', port, ...options });
  client.on('error', () => undefined);
  const bytes = await received;
  client.destroy();
  server.close();
  return bytes;
}

/** The hello's one record split into `sizes`-byte records (as a fragmenting client sends it). */
function refragment(hello: Buffer, sizes: number[]): Buffer {
  const body = hello.subarray(5, 5 + hello.readUInt16BE(3));
  const records: Buffer[] = [];
  let offset = 0;
  for (let i = 0; offset < body.length; i++) {
    const size = Math.min(sizes[i % sizes.length]!, body.length - offset);
    const header = Buffer.from([22, 3, 1, size >> 8, size & 0xff]);
    records.push(header, body.subarray(offset, offset + size));
    offset += size;
  }
  return Buffer.concat(records);
}

let withSni: Buffer;
let withAlpn: Buffer;
let withoutSni: Buffer;
let tls12: Buffer;

beforeAll(async () => {
  withSni = await captureClientHello({ servername: 'abcdefghijklmnopqrstuvwxyz234567.relay.localhost' });
  withAlpn = await captureClientHello({
    servername: 'P-Desk.Relay.Example',
    ALPNProtocols: ['acme-tls/1', 'http/1.1'],
  });
  withoutSni = await captureClientHello({ servername: '' });
  tls12 = await captureClientHello({ servername: 'old.example.org', maxVersion: 'TLSv1.2' });
});

describe('RLY-6 reading a ClientHello (lib/relay/clientHello.ts)', () => {
  it('RLY-6 names the SNI host and the ALPN protocols of Node’s own hellos', () => {
    expect(readClientHello(withSni)).toEqual({
      status: 'complete',
      serverName: 'abcdefghijklmnopqrstuvwxyz234567.relay.localhost',
      alpn: [],
    });
    // Host names are case-insensitive: routing sees them lowercased.
    expect(readClientHello(withAlpn)).toEqual({
      status: 'complete',
      serverName: 'p-desk.relay.example',
      alpn: ['acme-tls/1', 'http/1.1'],
    });
    expect(readClientHello(withoutSni)).toEqual({ status: 'complete', serverName: null, alpn: [] });
    expect(readClientHello(tls12)).toEqual({ status: 'complete', serverName: 'old.example.org', alpn: [] });
  });

  it('RLY-6 reads a hello split over several records, and refuses one over too many', () => {
    expect(readClientHello(refragment(withAlpn, [100, 7, 1000]))).toMatchObject({
      status: 'complete',
      serverName: 'p-desk.relay.example',
    });
    expect(readClientHello(refragment(withAlpn, [3]))).toMatchObject({ status: 'invalid' });
  });

  it('RLY-6 refuses what is not a hello at the first byte that shows it', () => {
    expect(readClientHello(Buffer.from('GET / HTTP/1.1\r\n'))).toMatchObject({ status: 'invalid' });
    expect(readClientHello(Buffer.from([0x16, 0x04]))).toMatchObject({ status: 'invalid' });
    // A record over 2^14 bytes, and a hello that says it is 64 KiB: refused before they arrive.
    expect(readClientHello(Buffer.from([0x16, 0x03, 0x01, 0x40, 0x01]))).toMatchObject({ status: 'invalid' });
    expect(readClientHello(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x04, 0x01, 0x01, 0x00, 0x00]))).toMatchObject({
      status: 'invalid',
    });
    // A server hello (type 2) is not a client's.
    const serverHello = Buffer.from(withSni);
    serverHello[5] = 2;
    expect(readClientHello(serverHello)).toMatchObject({ status: 'invalid' });
  });

  it('RLY-6 refuses a host name that is not a DNS name, and a lying extension length', () => {
    const name = 'abcdefghijklmnopqrstuvwxyz234567.relay.localhost';
    const at = withSni.indexOf(name);
    const slash = Buffer.from(withSni);
    slash.write('/', at + 3, 'latin1');
    expect(readClientHello(slash)).toMatchObject({ status: 'invalid' });
    const lying = Buffer.from(withSni);
    lying.writeUInt16BE(lying.readUInt16BE(at - 2) + 1, at - 2);
    expect(readClientHello(lying)).toMatchObject({ status: 'invalid' });
  });

  it('RLY-6 every truncation of a real hello needs more, and never more than the read bound', () => {
    for (const hello of [withSni, withAlpn, withoutSni, tls12, refragment(withAlpn, [50, 200])]) {
      expect(hello.length).toBeLessThanOrEqual(MAX_CLIENT_HELLO_READ_BYTES);
      for (let length = 0; length < hello.length; length++)
        expect(readClientHello(hello.subarray(0, length))).toEqual({ status: 'need-more' });
    }
  });

  it('RLY-6 any bytes give an answer, never an exception; a complete answer only for a real-shaped hello', () => {
    const helloLike = fc.oneof(
      fc.uint8Array({ maxLength: 600 }),
      // A real hello with bytes changed, cut or appended.
      fc
        .tuple(
          fc.constantFrom(withSni, withAlpn, tls12),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
          fc.nat(),
          fc.uint8Array({ maxLength: 40 }),
        )
        .map(([hello, changes, cut, tail]) => {
          const bytes = Buffer.concat([hello.subarray(0, hello.length - (cut % 8)), tail]);
          for (const [at, value] of changes) bytes[at % bytes.length] = value;
          return bytes;
        }),
    );
    fc.assert(
      fc.property(helloLike, (bytes) => {
        const read = readClientHello(bytes);
        expect(['complete', 'need-more', 'invalid']).toContain(read.status);
        if (read.status === 'complete') {
          expect(bytes[0]).toBe(22);
          if (read.serverName !== null) expect(read.serverName).toMatch(/^[a-z0-9.-]{1,253}$/);
        }
      }),
      propertyRuns(500),
    );
  });

  it('RLY-6 once a prefix reads invalid, more bytes never make it valid (a node closes at once)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(withSni, withAlpn),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        (hello, cut, at, value) => {
          const bytes = Buffer.from(hello);
          bytes[at % bytes.length] = value;
          const prefix = bytes.subarray(0, cut % bytes.length);
          if (readClientHello(prefix).status === 'invalid') expect(readClientHello(bytes).status).toBe('invalid');
        },
      ),
      propertyRuns(500),
    );
  });
});
