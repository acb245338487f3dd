import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import WebSocket from 'ws';
import type { RpcClient } from '../../lib/client/rpcClient';
import { randomInt, seededRandom } from './prng';

/** Which artifact to read, as its command row names it. */
export interface OutputSource {
  sessionId: string;
  runId: string;
  commandId: string;
  generation: number;
  byteLength: number;
}

/** How the answer's bytes travel: base64 in a JSON text frame (protocol v1's default) or raw in a binary frame. */
export type Transfer = 'base64' | 'binary';

const readParams = (source: OutputSource) => ({
  appSessionId: source.sessionId,
  runId: source.runId,
  commandId: source.commandId,
  generation: source.generation,
});

/** One `run.chatCommandOutputRead`, its bytes as a Buffer (decoded from base64, or the binary frame's tail as is). */
export async function readOutputPage(
  client: RpcClient,
  source: OutputSource,
  transfer: Transfer,
  offset: number,
  length: number,
): Promise<{ offset: number; bytes: Buffer }> {
  if (transfer === 'binary') {
    const { result, data } = await client.callBinary('run.chatCommandOutputRead', {
      ...readParams(source),
      offset,
      length,
    });
    if (result.dataBase64 !== '' || data.length !== result.byteCount)
      throw new Error(`binary answer at ${offset} does not match its header`);
    return { offset: result.offset, bytes: Buffer.from(data.buffer, data.byteOffset, data.length) };
  }
  const page = await client.call('run.chatCommandOutputRead', { ...readParams(source), offset, length });
  return { offset: page.offset, bytes: Buffer.from(page.dataBase64, 'base64') };
}

/** Reads `length` bytes of the file at `offset` into `into`. */
export function readFileAt(fd: number, offset: number, length: number, into: Buffer): Buffer {
  for (let done = 0; done < length;) {
    const n = fs.readSync(fd, into, done, length - done, offset + done);
    if (n === 0) throw new Error(`file ended at ${offset + done}`);
    done += n;
  }
  return into;
}

/**
 * Milliseconds of `samples` one-page reads at seeded random offsets of the output, each page
 * compared with the artifact's bytes (open as `artifactFd`) after its timer stopped.
 */
export async function pageReadLatencies(
  client: RpcClient,
  source: OutputSource,
  artifactFd: number,
  pageBytes: number,
  seed: number,
  samples: number,
): Promise<number[]> {
  const random = seededRandom(seed);
  const pageLength = Math.min(pageBytes, source.byteLength);
  const check = Buffer.allocUnsafe(pageLength);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const offset = randomInt(random, 0, Math.max(0, source.byteLength - pageBytes));
    const started = performance.now();
    const { bytes } = await readOutputPage(client, source, 'binary', offset, pageLength);
    times.push(performance.now() - started);
    if (!bytes.equals(readFileAt(artifactFd, offset, pageLength, check)))
      throw new Error(`read at ${offset} returned other bytes than the artifact holds`);
  }
  return times;
}

/**
 * Reads a whole command output with `run.chatCommandOutputRead` the way a good client does:
 * `window` requests of `pageBytes` in flight, each answer turned into bytes.
 * Resolves with the number of bytes received.
 */
export function readOutputWindowed(
  client: RpcClient,
  source: OutputSource,
  options: { window: number; pageBytes: number; transfer: Transfer },
  onPage?: (offset: number, bytes: Buffer) => void,
): Promise<number> {
  const size = source.byteLength;
  let nextOffset = 0;
  let received = 0;
  let inFlight = 0;
  return new Promise((resolve, reject) => {
    let failed = false;
    const fail = (error: unknown) => {
      failed = true;
      reject(error);
    };
    const issue = () => {
      while (!failed && inFlight < options.window && nextOffset < size) {
        const offset = nextOffset;
        const length = Math.min(options.pageBytes, size - offset);
        nextOffset += length;
        inFlight++;
        readOutputPage(client, source, options.transfer, offset, length)
          .then((page) => {
            inFlight--;
            const { bytes } = page;
            if (page.offset !== offset || bytes.length !== length) {
              throw new Error(
                `read at ${offset} answered offset ${page.offset} with ${bytes.length} bytes, expected ${length}`,
              );
            }
            received += bytes.length;
            onPage?.(offset, bytes);
            if (received === size) resolve(received);
            else issue();
          })
          .catch(fail);
      }
    };
    if (size === 0) resolve(0);
    else issue();
  });
}

/** Hashes pages that may arrive out of order, in file order. */
export class OrderedDigest {
  private readonly hash = crypto.createHash('sha256');
  private readonly waiting = new Map<number, Buffer>();
  private next = 0;

  add(offset: number, bytes: Buffer): void {
    this.waiting.set(offset, bytes);
    for (let page = this.waiting.get(this.next); page; page = this.waiting.get(this.next)) {
      this.waiting.delete(this.next);
      this.hash.update(page);
      this.next += page.length;
    }
  }

  digest(): string {
    if (this.waiting.size > 0) throw new Error(`${this.waiting.size} pages after a gap at ${this.next}`);
    return this.hash.digest('hex');
  }
}

/** Downloads the reference server's file over a fresh loopback connection; resolves with the byte count. */
export function downloadOverHttp(port: number, onChunk?: (bytes: Buffer) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`reference download answered ${res.statusCode}`));
        return;
      }
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        onChunk?.(chunk);
      });
      res.on('end', () => resolve(bytes));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** A client of the echo server: one message out (text or binary), the same message back. */
export class EchoClient {
  private readonly socket: WebSocket;
  private waiting: { resolve: (message: string | Buffer) => void; reject: (error: Error) => void } | null = null;
  readonly opened: Promise<void>;

  constructor(port: number) {
    this.socket = new WebSocket(`ws://127.0.0.1:${port}/`, { perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
    // The same event API RpcClient uses, so both sides receive text as a string and binary as a Buffer.
    this.socket.addEventListener('message', (event) => {
      const waiting = this.waiting;
      this.waiting = null;
      waiting?.resolve(
        typeof event.data === 'string' ? event.data : Buffer.isBuffer(event.data) ? event.data : String(event.data),
      );
    });
    this.socket.on('error', () => {
      // Reported through 'close', which follows.
    });
    this.socket.on('close', () => {
      const waiting = this.waiting;
      this.waiting = null;
      waiting?.reject(new Error('the echo connection closed'));
    });
  }

  roundTrip(message: string | Buffer): Promise<string | Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.send(message, { binary: typeof message !== 'string' });
    });
  }

  close(): void {
    this.socket.close();
  }
}
