import crypto from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { decodeLinkFrame, encodeLinkFrame, LINK_FRAME, RELAY_DESKTOP_PATH, RELAY_DEVICE_PATH, RelayChallengeSchema } from '../lib/relay/relayWire';
import { startNatsServer } from '../tests/fixtures/natsServer';
import { makeDesktopKeys, registerMessage } from '../tests/fixtures/relayClients';
import { spawnBenchChild } from './lib/benchChild';
import { benchSettings, type Benchmark, type BenchOutcome } from './lib/report';
import { median, percentile } from './lib/rounds';

const PAIRS = Number(process.env.HBCODE_BENCH_RELAY_PAIRS ?? 1000);
const SECONDS = Number(process.env.HBCODE_BENCH_RELAY_SECONDS ?? 20);
const FRAME_BYTES = 4 * 1024;
const LATENCY_FRAME_BYTES = 256 * 1024;
const MIB = 1024 * 1024;
const HOST = 'relay.localhost';
const ORIGIN = `http://${HOST}`;

interface Usage {
  cpu: NodeJS.CpuUsage;
  rss: number;
}

/** A bench child (a relay node or the bare forwarder), asked for its own CPU time and RSS over IPC. */
interface Child {
  port: number;
  usage(): Promise<Usage>;
  stop(): Promise<void>;
}

async function startChild(args: string[]): Promise<Child> {
  const { child, port } = await spawnBenchChild('relayBenchChild.ts', args, { ipc: true });
  const waiters: ((u: Usage) => void)[] = [];
  child.on('message', (message) => waiters.shift()?.(message as Usage));
  return {
    port,
    usage: () =>
      new Promise((resolve) => {
        waiters.push(resolve);
        child.send('usage');
      }),
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** `onMessage` is attached before the socket opens: the relay's challenge can come in the same read as the upgrade's answer. */
function openSocket(port: number, urlPath: string, onMessage?: (data: Buffer, isBinary: boolean, ws: WebSocket) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${urlPath}`, { headers: { host: HOST, origin: ORIGIN }, perMessageDeflate: false, maxPayload: 64 * MIB });
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

/** A lean desktop: register, take the OPEN, ACK every DATA it receives. */
async function relayPair(desktopPort: number, devicePort: number): Promise<Pair> {
  const keys = makeDesktopKeys();
  const received = { atDesktop: 0, atDevice: 0 };
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
    if (frame.type === LINK_FRAME.open) {
      connectionId = frame.connectionId;
      opened();
    } else if (frame.type === LINK_FRAME.data) {
      received.atDesktop += frame.payload.length;
      ws.send(encodeLinkFrame({ type: LINK_FRAME.ack, connectionId: frame.connectionId, bytes: frame.payload.length }));
    }
  });
  await isRegistered;
  const pair: Pair = {
    received,
    sendFromDesktop: (payload) => desktop.send(encodeLinkFrame({ type: LINK_FRAME.data, connectionId, payload })),
    sendFromDevice: (frame) => device.send(frame),
    close: () => {
      device.terminate();
      desktop.terminate();
    },
  };
  const device = await openSocket(devicePort, `${RELAY_DEVICE_PATH}?desktop=${keys.desktopId}`, (data) => {
    received.atDevice += data.length;
    pair.onDevice?.(data);
  });
  await isOpened;
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
  for (let start = 0; start < count; start += batch) out.push(...(await Promise.all(Array.from({ length: Math.min(batch, count - start) }, (_, k) => make(start + k)))));
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
      if (i % 50 === 0) await new Promise((resolve) => setTimeout(resolve, Math.max(0, tickStart + (i / pairs.length) * 1000 - performance.now())));
      pairs[i]!.sendFromDesktop(frame);
      pairs[i]!.sendFromDevice(frame);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, tickStart + 1000 - performance.now())));
  }
  const expected = pairs.length * SECONDS * FRAME_BYTES;
  const deadline = Date.now() + 60_000;
  while (pairs.some((p) => p.received.atDesktop < expected / pairs.length || p.received.atDevice < expected / pairs.length) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  clearInterval(sampler);
  const done = await child.usage();
  rssSamples.push(done.rss);
  const relayedBytes = pairs.reduce((sum, p) => sum + p.received.atDesktop + p.received.atDevice, 0);
  const seconds = (performance.now() - started) / 1000;
  progress(`   ${(relayedBytes / MIB).toFixed(1)} MiB relayed in ${seconds.toFixed(1)} s, node CPU ${cpuMs(idle.cpu, done.cpu).toFixed(0)} ms`);
  return {
    relayedMiB: relayedBytes / MIB,
    expectedMiB: (2 * expected) / MIB,
    cpuMsPerMiB: cpuMs(idle.cpu, done.cpu) / (relayedBytes / MIB),
    cpuShareOfOneCore: cpuMs(idle.cpu, done.cpu) / 1000 / seconds,
    rssLinkedMiB: idle.rss / MIB,
    rssPeakMiB: Math.max(...rssSamples) / MIB,
  };
}

/** Milliseconds from send to arrival of one 256 KiB frame, `rounds` times, one at a time. */
async function latencies(pair: Pair, rounds: number): Promise<number[]> {
  const frame = crypto.randomBytes(LATENCY_FRAME_BYTES);
  const times: number[] = [];
  for (let round = 0; round < rounds + 3; round++) {
    const arrived = new Promise<number>((resolve) => {
      pair.onDevice = () => resolve(performance.now());
    });
    const sent = performance.now();
    pair.sendFromDesktop(frame);
    const at = await arrived;
    // The first rounds warm up the JIT and the sockets' buffers.
    if (round >= 3) times.push(at - sent);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  pair.onDevice = undefined;
  return times;
}

/** The reference hop: one WebSocket from this process to a server in this process. */
async function directPair(): Promise<{ pair: Pair; stop(): Promise<void> }> {
  const server = http.createServer();
  const wss = new WebSocketServer({ server, perMessageDeflate: false, maxPayload: 64 * MIB });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const serverSide = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const client = await openSocket((server.address() as net.AddressInfo).port, '/');
  const device = await serverSide;
  const received = { atDesktop: 0, atDevice: 0 };
  const pair: Pair = { received, sendFromDesktop: (f) => client.send(f), sendFromDevice: (f) => device.send(f), close: () => client.terminate() };
  device.on('message', (data: Buffer) => pair.onDevice?.(data));
  return {
    pair,
    stop: async () => {
      client.terminate();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * RLY-4: what one relay node costs holding 1,000 linked desktop/device pairs with light traffic
 * (CPU per relayed MiB and RSS, against a bare WebSocket forwarder carrying the same traffic), and
 * what the relay adds to one 256 KiB frame (desktop → node → NATS → node → device, against one
 * direct WebSocket hop).
 */
export const relayNode: Benchmark = {
  name: 'relay-node',
  async run(progress): Promise<BenchOutcome> {
    const { rounds } = benchSettings(1, 30);
    const nats = await startNatsServer();
    const children: Child[] = [];
    try {
      progress(`relay node: linking ${PAIRS} desktop/device pairs`);
      const node = await startChild(['relay', nats.url, 'bench1']);
      children.push(node);
      const fresh = await node.usage();
      const relayPairs = await inBatches(PAIRS, 50, () => relayPair(node.port, node.port));
      progress(`relay node: ${SECONDS} s of one ${FRAME_BYTES / 1024} KiB frame each way per pair per second`);
      const relay = await lightTraffic(node, relayPairs, progress);
      for (const pair of relayPairs) pair.close();

      progress(`bare forwarder: ${PAIRS} pairs, the same traffic`);
      const forwarder = await startChild(['forwarder']);
      children.push(forwarder);
      const forwarderFresh = await forwarder.usage();
      const forwardPairs = await inBatches(PAIRS, 50, (i) => forwarderPair(forwarder.port, i));
      const direct = await lightTraffic(forwarder, forwardPairs, progress);
      for (const pair of forwardPairs) pair.close();

      progress(`latency of one ${LATENCY_FRAME_BYTES / 1024} KiB frame, ${rounds} rounds`);
      const second = await startChild(['relay', nats.url, 'bench2']);
      children.push(second);
      const crossPair = await relayPair(node.port, second.port);
      const hop = await directPair();
      const relayed = await latencies(crossPair, rounds);
      const hopTimes = await latencies(hop.pair, rounds);
      crossPair.close();
      await hop.stop();

      return {
        comparisons: [
          { rule: 'RLY-4', label: `node CPU per relayed MiB, ${PAIRS} pairs, 4 KiB frames`, unit: 'ms', better: 'lower', oursName: 'relay node', referenceName: 'bare ws forwarder', ours: relay.cpuMsPerMiB, reference: direct.cpuMsPerMiB, target: null },
          { rule: 'RLY-4', label: `node RSS holding ${PAIRS} pairs under traffic (peak)`, unit: 'MiB', better: 'lower', oursName: 'relay node', referenceName: 'bare ws forwarder', ours: relay.rssPeakMiB, reference: direct.rssPeakMiB, target: null },
          { rule: 'RLY-4', label: '256 KiB frame desktop→node→NATS→node→device (median)', unit: 'ms', better: 'lower', oursName: 'relay, two nodes', referenceName: 'direct ws hop', ours: median(relayed), reference: median(hopTimes), target: null },
        ],
        parameters: { pairs: PAIRS, seconds: SECONDS, frameBytes: FRAME_BYTES, latencyFrameBytes: LATENCY_FRAME_BYTES, rounds },
        measurements: {
          relay: { ...relay, rssFreshMiB: fresh.rss / MIB },
          forwarder: { ...direct, rssFreshMiB: forwarderFresh.rss / MIB },
          latencyMs: {
            relay: { median: median(relayed), p95: percentile(relayed, 0.95), all: relayed },
            direct: { median: median(hopTimes), p95: percentile(hopTimes, 0.95), all: hopTimes },
          },
        },
        notes: [
          'Both ends of every pair sit on the one node under load, so it handles each frame twice (socket → NATS, NATS → socket), as it does when desktop and device land on the same node; nats-server’s own CPU is not counted.',
          'The bare forwarder pairs two sockets and passes bytes between them: no challenge, no link frames, no ACKs, no NATS. Desktops and devices are ws clients in the bench process.',
        ],
      };
    } finally {
      for (const child of children) await child.stop();
      await nats.stop();
    }
  },
};
