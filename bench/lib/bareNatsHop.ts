/**
 * The floor of the relay's path, for bench/relay-channel.ts: the same hops with nothing done on
 * them. Two of these processes stand where the relay nodes stand, joined by the same nats-server,
 * and pass protocol v1's messages as they are: no channel, no encryption, no windows, no parts.
 *
 *   device-side NATS_URL            a WebSocket server; connection N's messages go to `bare.up.N.<t|b>`,
 *                                   and what comes on `bare.down.N.*` goes back to it
 *   desktop-side NATS_URL PORT HOST a WebSocket to the runtime's /rpc (Host and Origin HOST) per N,
 *                                   fed from `bare.up.N.*`, its answers published on `bare.down.N.*`
 *
 * Prints `READY <port>` (0 for the desktop side) once it is listening and subscribed.
 */
import http from 'node:http';
import type net from 'node:net';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import WebSocket, { WebSocketServer } from 'ws';

const kindOf = (isBinary: boolean) => (isBinary ? 'b' : 't');

async function deviceSide(nc: NatsConnection): Promise<number> {
  const server = http.createServer();
  const wss = new WebSocketServer({ server, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
  let counter = 0;
  wss.on('connection', (ws) => {
    const id = ++counter;
    const down = nc.subscribe(`bare.down.${id}.*`, {
      callback: (error, msg) => {
        if (!error) ws.send(msg.data, { binary: msg.subject.endsWith('.b') });
      },
    });
    ws.on('message', (data: Buffer, isBinary) => nc.publish(`bare.up.${id}.${kindOf(isBinary)}`, data));
    ws.on('close', () => down.unsubscribe());
  });
  await nc.flush();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as net.AddressInfo).port;
}

async function desktopSide(nc: NatsConnection, runtimePort: number, host: string): Promise<number> {
  const sockets = new Map<string, { ws: WebSocket; waiting: { data: Uint8Array; binary: boolean }[] }>();
  nc.subscribe('bare.up.*.*', {
    callback: (error, msg) => {
      if (error) return;
      const [, , id = '', kind] = msg.subject.split('.');
      let entry = sockets.get(id);
      if (!entry) {
        const ws = new WebSocket(`ws://127.0.0.1:${runtimePort}/rpc`, { headers: { host }, origin: `http://${host}`, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
        const created = { ws, waiting: [] as { data: Uint8Array; binary: boolean }[] };
        entry = created;
        sockets.set(id, created);
        ws.on('open', () => {
          for (const queued of created.waiting.splice(0)) ws.send(queued.data, { binary: queued.binary });
        });
        ws.on('message', (data: Buffer, isBinary) => nc.publish(`bare.down.${id}.${kindOf(isBinary)}`, data));
      }
      const binary = kind === 'b';
      if (entry.ws.readyState === WebSocket.OPEN) entry.ws.send(msg.data, { binary });
      else entry.waiting.push({ data: msg.data, binary });
    },
  });
  await nc.flush();
  return 0;
}

const [mode, natsUrl, runtimePort, host] = process.argv.slice(2);
const nc = await connect({ servers: natsUrl!, name: `bare-${mode}`, maxReconnectAttempts: 0 });
// The bench's nats-server is gone: so is the bench.
void nc.closed().then(() => process.exit(0));
const port = mode === 'device-side' ? await deviceSide(nc) : await desktopSide(nc, Number(runtimePort), host!);
process.stdout.write(`READY ${port}\n`);
