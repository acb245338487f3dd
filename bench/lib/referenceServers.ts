import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';

/** Room for a 256 KiB page as base64 and then some; the echo server must not refuse it. */
const ECHO_MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;

export interface ReferenceServer {
  port: number;
  close(): Promise<void>;
}

/** The plain download PERF-2 compares with: the whole file, fs.createReadStream piped to the response. */
export function startFileServer(file: string, extraHeaders: Record<string, string> = {}): Promise<ReferenceServer> {
  const server = http.createServer((_req, res) => {
    const { size } = fs.statSync(file);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size, ...extraHeaders });
    fs.createReadStream(file).pipe(res);
  });
  return listenOnLoopback(server);
}

/** Starts `server` on a free loopback port. */
export function listenOnLoopback(server: http.Server): Promise<ReferenceServer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    );
  });
}

/** Asks the echo server for `n` bytes instead of an echo: a small request, a binary reply of that size. */
export const replyRequest = (n: number) => `reply ${n}`;

/**
 * A WebSocket server that sends every message straight back: one round trip, nothing else.
 * A `reply N` text message is answered with N bytes from a buffer it keeps (no allocation).
 */
export function startEchoServer(): Promise<ReferenceServer> {
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    perMessageDeflate: false,
    maxPayload: ECHO_MAX_PAYLOAD_BYTES,
  });
  let replyBytes = Buffer.alloc(0);
  wss.on('connection', (ws) =>
    ws.on('message', (data, isBinary) => {
      const bytes = data as Buffer;
      const asked = !isBinary && bytes.length < 32 ? /^reply (\d+)$/.exec(bytes.toString()) : null;
      if (!asked) return ws.send(bytes, { binary: isBinary });
      const n = Number(asked[1]);
      if (replyBytes.length < n) replyBytes = Buffer.alloc(n, 0x5a);
      ws.send(replyBytes.subarray(0, n), { binary: true });
    }),
  );
  return new Promise((resolve, reject) => {
    wss.once('error', reject);
    wss.once('listening', () =>
      resolve({
        port: (wss.address() as AddressInfo).port,
        close: () =>
          new Promise((done) => {
            for (const ws of wss.clients) ws.terminate();
            wss.close(() => done());
          }),
      }),
    );
  });
}

export interface ReferenceProcess {
  httpPort: number;
  close(): Promise<void>;
}

const MAIN = fileURLToPath(new URL('./referenceServerMain.ts', import.meta.url));

/**
 * The reference file server in a child process of its own, as the runtime runs, so a reader can
 * see what the process boundary costs the reference.
 */
export async function spawnFileServer(file: string): Promise<ReferenceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ports = await new Promise<{ httpPort: number }>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(JSON.parse(line) as { httpPort: number });
    });
    void exited.then(() => reject(new Error(`the reference file server exited before listening: ${out}`)));
  });
  return {
    ...ports,
    async close() {
      child.kill('SIGTERM');
      await exited;
      process.off('exit', killOnExit);
    },
  };
}
