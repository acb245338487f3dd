/**
 * The floor of the relay's passthrough path, for bench/relay-passthrough.ts: the same hops with
 * nothing done on them. Plain TCP bytes, no TLS, no link frames, no windows, no parts:
 *
 *   device-side NATS_URL        a TCP server; connection N's bytes go to `baretcp.up.N`, and what
 *                               comes on `baretcp.down.N` is written back to it
 *   desktop-side NATS_URL PORT  per N, a TCP connection to PORT (the runtime's) fed from
 *                               `baretcp.up.N`, its bytes published on `baretcp.down.N`
 *   forwarder PORT              one process between client and PORT, piping TCP both ways (one node's floor)
 *
 * Prints `READY <port>` (0 for the desktop side) once it is listening and subscribed.
 */
import net from 'node:net';
import { connect, type NatsConnection } from '@nats-io/transport-node';

/** Under nats-server's default max_payload (1 MiB). */
const MAX_MESSAGE_BYTES = 512 * 1024;

function publishBytes(nc: NatsConnection, subject: string, bytes: Buffer): void {
  for (let offset = 0; offset < bytes.length; offset += MAX_MESSAGE_BYTES)
    nc.publish(subject, bytes.subarray(offset, offset + MAX_MESSAGE_BYTES));
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as net.AddressInfo).port;
}

async function deviceSide(nc: NatsConnection): Promise<number> {
  let counter = 0;
  const server = net.createServer({ noDelay: true }, (socket) => {
    const id = ++counter;
    const down = nc.subscribe(`baretcp.down.${id}`, {
      callback: (error, msg) => void (error || socket.write(msg.data)),
    });
    socket.on('data', (chunk: Buffer) => publishBytes(nc, `baretcp.up.${id}`, chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => down.unsubscribe());
  });
  await nc.flush();
  return listen(server);
}

async function desktopSide(nc: NatsConnection, runtimePort: number): Promise<number> {
  const sockets = new Map<string, net.Socket>();
  nc.subscribe('baretcp.up.*', {
    callback: (error, msg) => {
      if (error) return;
      const id = msg.subject.split('.')[2] ?? '';
      let socket = sockets.get(id);
      if (!socket) {
        const created = net.connect({ port: runtimePort, host: '127.0.0.1', noDelay: true });
        created.on('data', (chunk: Buffer) => publishBytes(nc, `baretcp.down.${id}`, chunk));
        created.on('error', () => created.destroy());
        sockets.set(id, created);
        socket = created;
      }
      // net.Socket queues writes made before it connects.
      socket.write(msg.data);
    },
  });
  await nc.flush();
  return 0;
}

async function forwarder(runtimePort: number): Promise<number> {
  const server = net.createServer({ noDelay: true }, (socket) => {
    const upstream = net.connect({ port: runtimePort, host: '127.0.0.1', noDelay: true });
    socket.pipe(upstream).pipe(socket);
    for (const end of [socket, upstream]) end.on('error', () => (socket.destroy(), upstream.destroy()));
  });
  return listen(server);
}

const [mode, first, second] = process.argv.slice(2);
let port: number;
if (mode === 'forwarder') {
  port = await forwarder(Number(first));
} else {
  const nc = await connect({ servers: first!, name: `baretcp-${mode}`, maxReconnectAttempts: 0 });
  // The bench's nats-server is gone: so is the bench.
  void nc.closed().then(() => process.exit(0));
  port = mode === 'device-side' ? await deviceSide(nc) : await desktopSide(nc, Number(second));
}
process.stdout.write(`READY ${port}\n`);
