/**
 * A child process for bench/relay-node.ts: either a relay node with a TLS passthrough port (`relay NATS_URL NODE_ID`)
 * or the reference, a bare WebSocket forwarder that pairs `/a?id=N` with `/b?id=N` and passes
 * binary messages between them (`forwarder`). It prints `READY <port>` and answers each IPC
 * message with its own CPU time and RSS, so the bench measures this process alone.
 */
import http from 'node:http';
import type net from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { startRelayNode } from '../../relay/relayNode';

/** The relay's TLS port (RLY-6), told with each usage answer; null for the forwarder. */
let tlsPort: number | null = null;

function answerUsage(): void {
  process.on('message', () => process.send?.({ cpu: process.cpuUsage(), rss: process.memoryUsage().rss, tlsPort }));
}

async function relay(natsUrl: string, nodeId: string): Promise<number> {
  const node = await startRelayNode({
    publicUrl: 'http://relay.localhost',
    natsUrl,
    nodeId,
    port: 0,
    tlsPort: 0,
    maxConnections: 10_000,
    connectRate: { burst: 100_000, periodMs: 1_000 },
    log: () => undefined,
  });
  tlsPort = node.tlsPort;
  return node.port;
}

async function forwarder(): Promise<number> {
  const server = http.createServer();
  const wss = new WebSocketServer({ server, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
  const waiting = new Map<string, WebSocket>();
  wss.on('connection', (ws, req) => {
    const url = new URL(req.url ?? '/', 'http://forwarder');
    const id = url.searchParams.get('id') ?? '';
    const peer = waiting.get(id);
    if (!peer) {
      waiting.set(id, ws);
      ws.on('message', (data: Buffer) => (ws as WebSocket & { peer?: WebSocket }).peer?.send(data));
      return;
    }
    waiting.delete(id);
    (ws as WebSocket & { peer?: WebSocket }).peer = peer;
    (peer as WebSocket & { peer?: WebSocket }).peer = ws;
    ws.on('message', (data: Buffer) => peer.send(data));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as net.AddressInfo).port;
}

const [mode, natsUrl, nodeId] = process.argv.slice(2);
answerUsage();
const port = mode === 'relay' ? await relay(natsUrl!, nodeId!) : await forwarder();
process.stdout.write(`READY ${port}\n`);
