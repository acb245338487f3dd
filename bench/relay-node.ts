import crypto from 'node:crypto';
import net from 'node:net';
import WebSocket from 'ws';
import {
  decodeLinkFrame,
  encodeLinkFrame,
  LINK_FRAME,
  RELAY_DESKTOP_PATH,
  RelayChallengeSchema,
} from '../lib/relay/relayWire';
import { clientHelloFor } from '../tests/fixtures/clientHello';
import { startNatsServer } from '../tests/fixtures/natsServer';
import { makeDesktopKeys, registerMessage } from '../tests/fixtures/relayClients';
import { spawnBenchChild } from './lib/benchChild';
import { machineLoad, type Benchmark, type BenchOutcome } from './lib/report';

const PAIRS = Number(process.env.HBCODE_BENCH_RELAY_PAIRS ?? 1000);
const SECONDS = Number(process.env.HBCODE_BENCH_RELAY_SECONDS ?? 20);
const FRAME_BYTES = 4 * 1024;
const MIB = 1024 * 1024;
/** Every desktop id has 32 characters: one hello serves them all with the name swapped in. */
const NAME_PLACEHOLDER = 'a'.repeat(32);
const HOST = 'relay.localhost';
const ORIGIN = `http://${HOST}`;

interface Usage {
  cpu: NodeJS.CpuUsage;
  rss: number;
  tlsPort: number | null;
}

/** A bench child (a relay node or the bare forwarder), asked for its own CPU time and RSS over IPC. */
interface Child {
  port: number;
  tlsPort: number | null;
  usage(): Promise<Usage>;
  stop(): Promise<void>;
}

async function startChild(args: string[]): Promise<Child> {
  const { child, port } = await spawnBenchChild('relayBenchChild.ts', args, { ipc: true });
  const waiters: ((u: Usage) => void)[] = [];
  child.on('message', (message) => waiters.shift()?.(message as Usage));
  const usage = () =>
    new Promise<Usage>((resolve) => {
      waiters.push(resolve);
      child.send('usage');
    });
  return {
    port,
    tlsPort: (await usage()).tlsPort,
    usage,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** `onMessage` is attached before the socket opens: the relay's challenge can come in the same read as the upgrade's answer. */
function openSocket(
  port: number,
  urlPath: string,
  onMessage?: (data: Buffer, isBinary: boolean, ws: WebSocket) => void,
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${urlPath}`, {
      headers: { host: HOST, origin: ORIGIN },
      perMessageDeflate: false,
      maxPayload: 64 * MIB,
    });
    if (onMessage) ws.on('message', (data: Buffer, isBinary) => onMessage(data, isBinary, ws));
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** One desktop and one device, linked through the relay or the forwarder; counts what arrives. */
interface Pair {
  sendFromDesktop(frame: Uint8Array): void;
  sendFromDevice(frame: Uint8Array): void;
  received: { atDesktop: number; atDevice: number };
  onDevice?: (data: Buffer) => void;
  close(): void;
}

/**
 * A lean desktop (register, take the STREAM, ACK every DATA it receives) and a device: a TCP
 * connection to the node's TLS port that opens with a ClientHello for the desktop's name (RLY-6),
 * then sends raw bytes (the node reads no further than the hello).
 */
async function relayPair(desktopPort: number, tlsPort: number, helloTemplate: Buffer): Promise<Pair> {
  const keys = makeDesktopKeys();
  const hello = Buffer.from(helloTemplate.toString('latin1').replace(NAME_PLACEHOLDER, keys.desktopId), 'latin1');
  // The hello reaches the desktop as the stream's first bytes: not counted as traffic.
  const received = { atDesktop: -hello.length, atDevice: 0 };
  let connectionId = '';
  let registered!: () => void;
  let opened!: () => void;
  const isRegistered = new Promise<void>((resolve) => (registered = resolve));
  const isOpened = new Promise<void>((resolve) => (opened = resolve));
  const desktop = await openSocket(desktopPort, RELAY_DESKTOP_PATH, (data, isBinary, ws) => {
    if (!isBinary) {
      const text = data.toString('utf8');
      if (text.includes('"challenge"')) ws.send(registerMessage(keys, RelayChallengeSchema.parse(JSON.parse(text))));
      else if (text.includes('"registered"')) registered();
      return;
    }
    const frame = decodeLinkFrame(data);
    if (frame.type === LINK_FRAME.stream) {
      connectionId = frame.connectionId;
      opened();
    } else if (frame.type === LINK_FRAME.data) {
      received.atDesktop += frame.payload.length;
      ws.send(encodeLinkFrame({ type: LINK_FRAME.ack, connectionId: frame.connectionId, bytes: frame.payload.length }));
    }
  });
  await isRegistered;
  const device = net.connect({ port: tlsPort, host: '127.0.0.1', noDelay: true });
  device.on('data', (chunk: Buffer) => {
    received.atDevice += chunk.length;
    pair.onDevice?.(chunk);
  });
  device.write(hello);
  const pair: Pair = {
    received,
    sendFromDesktop: (payload) => desktop.send(encodeLinkFrame({ type: LINK_FRAME.data, connectionId, payload })),
    sendFromDevice: (frame) => device.write(frame),
    close: () => {
      device.destroy();
      desktop.terminate();
    },
  };
  await isOpened;
  await new Promise<void>((resolve) => {
    const check = () => (received.atDesktop >= 0 ? resolve() : setTimeout(check, 5));
    check();
  });
  return pair;
}

async function forwarderPair(port: number, id: number): Promise<Pair> {
  const received = { atDesktop: 0, atDevice: 0 };
  const desktop = await openSocket(port, `/a?id=${id}`, (data) => (received.atDesktop += data.length));
  const device = await openSocket(port, `/b?id=${id}`, (data) => {
    received.atDevice += data.length;
    pair.onDevice?.(data);
  });
  const pair: Pair = {
    received,
    sendFromDesktop: (frame) => desktop.send(frame),
    sendFromDevice: (frame) => device.send(frame),
    close: () => {
      device.terminate();
      desktop.terminate();
    },
  };
  return pair;
}

async function inBatches<T>(count: number, batch: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < count; start += batch)
    out.push(...(await Promise.all(Array.from({ length: Math.min(batch, count - start) }, (_, k) => make(start + k)))));
  return out;
}

const cpuMs = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => (b.user - a.user + b.system - a.system) / 1000;

/** Every pair sends one 4 KiB frame each way per second, spread over the second; returns the node's costs. */
async function lightTraffic(child: Child, pairs: Pair[], progress: (line: string) => void) {
  const frame = crypto.randomBytes(FRAME_BYTES);
  const idle = await child.usage();
  const rssSamples: number[] = [idle.rss];
  const sampler = setInterval(() => void child.usage().then((u) => rssSamples.push(u.rss)), 500);
  const started = performance.now();
  for (let second = 0; second < SECONDS; second++) {
    const tickStart = performance.now();
    for (let i = 0; i < pairs.length; i++) {
      // Spread the pairs over the second, as independent phones would be.
      if (i % 50 === 0)
        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(0, tickStart + (i / pairs.length) * 1000 - performance.now())),
        );
      pairs[i]!.sendFromDesktop(frame);
      pairs[i]!.sendFromDevice(frame);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, tickStart + 1000 - performance.now())));
  }
  const expected = pairs.length * SECONDS * FRAME_BYTES;
  const deadline = Date.now() + 60_000;
  while (
    pairs.some(
      (p) => p.received.atDesktop < expected / pairs.length || p.received.atDevice < expected / pairs.length,
    ) &&
    Date.now() < deadline
  ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  clearInterval(sampler);
  const done = await child.usage();
  rssSamples.push(done.rss);
  const relayedBytes = pairs.reduce((sum, p) => sum + p.received.atDesktop + p.received.atDevice, 0);
  const seconds = (performance.now() - started) / 1000;
  progress(
    `   ${(relayedBytes / MIB).toFixed(1)} MiB relayed in ${seconds.toFixed(1)} s, node CPU ${cpuMs(idle.cpu, done.cpu).toFixed(0)} ms`,
  );
  return {
    relayedMiB: relayedBytes / MIB,
    expectedMiB: (2 * expected) / MIB,
    cpuMsPerMiB: cpuMs(idle.cpu, done.cpu) / (relayedBytes / MIB),
    cpuShareOfOneCore: cpuMs(idle.cpu, done.cpu) / 1000 / seconds,
    rssLinkedMiB: idle.rss / MIB,
    rssPeakMiB: Math.max(...rssSamples) / MIB,
    load: machineLoad().loadAverage,
  };
}

/**
 * RLY-4, RLY-6, RLY-8: what one relay node costs holding 1,000 linked desktops, each with one TLS
 * passthrough stream from its device on the same node (joined there, no NATS), with light
 * traffic: CPU per relayed MiB and RSS, against a bare WebSocket forwarder carrying the same
 * traffic. The latency of larger reads through the relay is bench/relay-passthrough.ts's.
 */
export const relayNode: Benchmark = {
  name: 'relay-node',
  async run(progress): Promise<BenchOutcome> {
    const nats = await startNatsServer();
    const children: Child[] = [];
    try {
      progress(`relay node: linking ${PAIRS} desktops, each with a passthrough stream from its device`);
      const node = await startChild(['relay', nats.url, 'bench1']);
      children.push(node);
      const fresh = await node.usage();
      const helloTemplate = await clientHelloFor(`${NAME_PLACEHOLDER}.relay.localhost`);
      const relayPairs = await inBatches(PAIRS, 50, () => relayPair(node.port, node.tlsPort!, helloTemplate));
      progress(`relay node: ${SECONDS} s of one ${FRAME_BYTES / 1024} KiB write each way per pair per second`);
      const relay = await lightTraffic(node, relayPairs, progress);
      for (const pair of relayPairs) pair.close();

      progress(`bare forwarder: ${PAIRS} pairs, the same traffic`);
      const forwarder = await startChild(['forwarder']);
      children.push(forwarder);
      const forwarderFresh = await forwarder.usage();
      const forwardPairs = await inBatches(PAIRS, 50, (i) => forwarderPair(forwarder.port, i));
      const direct = await lightTraffic(forwarder, forwardPairs, progress);
      for (const pair of forwardPairs) pair.close();

      return {
        comparisons: [
          {
            rule: 'RLY-4',
            label: `node CPU per relayed MiB, ${PAIRS} desktops with a passthrough stream each, 4 KiB writes`,
            unit: 'ms',
            better: 'lower',
            oursName: 'relay node',
            referenceName: 'bare ws forwarder',
            ours: relay.cpuMsPerMiB,
            reference: direct.cpuMsPerMiB,
            target: null,
          },
          {
            rule: 'RLY-4',
            label: `node RSS holding ${PAIRS} desktops and streams under traffic (peak)`,
            unit: 'MiB',
            better: 'lower',
            oursName: 'relay node',
            referenceName: 'bare ws forwarder',
            ours: relay.rssPeakMiB,
            reference: direct.rssPeakMiB,
            target: null,
          },
        ],
        parameters: { pairs: PAIRS, seconds: SECONDS, frameBytes: FRAME_BYTES },
        measurements: {
          relay: { ...relay, rssFreshMiB: fresh.rss / MIB },
          forwarder: { ...direct, rssFreshMiB: forwarderFresh.rss / MIB },
        },
        notes: [
          'Each desktop links to the node (challenge, registration) and its device opens a TCP connection to the node’s TLS port with a ClientHello for the desktop’s name; both ends sit on the one node, so every stream is joined there (RLY-8) and NATS carries only heartbeats. After the hello the bench sends raw bytes: the node reads no further than the hello, so what it costs is what TLS records would cost; the TLS itself is the device’s and the desktop’s.',
          'The bare forwarder pairs two WebSockets and passes messages between them: no challenge, no link frames, no ACKs. Desktops and devices are clients in the bench process. load: the load average after each half (2 cores shared with other work).',
        ],
      };
    } finally {
      for (const child of children) await child.stop();
      await nats.stop();
    }
  },
};
