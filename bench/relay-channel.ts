/**
 * RLY-3: reading a command output through the relay against reading it directly, in one run.
 * A real nats-server, two relay nodes as child processes serving one public origin (node 1
 * listens on its port, so the desktop's link lands there), the runtime started with `--relay`,
 * and a device in this process whose channel (RelaySocket, the app's own) goes to node 2: every
 * answer travels desktop → node 1 → NATS → node 2 → device, sealed by the channel. The direct
 * client is the runtime's local /rpc.
 *
 * NOTE: no load balancer sits in front. A deployment's balancer is the kernel's or another
 * machine's; the tests' JavaScript balancer would copy every byte once more on this machine's two
 * cores and measure the fixture, not the relay.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import WebSocket from 'ws';
import { openRelayChannel } from '../lib/client/relay/relayChannel';
import { pairThroughRelay } from '../lib/client/relay/pairThroughRelay';
import type { RawRelaySocket } from '../lib/client/relay/relaySocket';
import { RpcClient, type WebSocketLike } from '../lib/client/rpcClient';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES, PROTOCOL_VERSION } from '../lib/protocol/version';
import { startNatsServer, type NatsServer } from '../tests/fixtures/natsServer';
import { relayLinkInBanner } from '../tests/fixtures/relayDevice';
import { nodeFrameAead } from '../server/relayLink/nodeFrameAead';
import { startRelayChild, type RelayNodeHandle } from '../tests/fixtures/relayNodes';
import { freePort, TEST_TOKEN, type RuntimeProcess } from '../tests/fixtures/runtimeProcess';
import { waitUntil } from '../tests/fixtures/waitUntil';
import { spawnBenchChild } from './lib/benchChild';
import { ProcessMeter } from './lib/procUsage';
import { produceOutput, type ProducedOutput } from './lib/producedOutput';
import { randomInt, seededRandom } from './lib/prng';
import { OrderedDigest, readOutputPage, readOutputWindowed, type OutputSource } from './lib/readClients';
import { benchSettings, formatSize, GIB, machineLoad, type Benchmark, type BenchOutcome, type Comparison } from './lib/report';
import { median, now, percentile, rotateRounds } from './lib/rounds';

const SEED = 0x2e1a73;
const PAGE_BYTES = MAX_COMMAND_OUTPUT_RANGE_BYTES;
/** Requests in flight while reading a whole output, as PERF-2 and the app's reader keep them. */
const READ_WINDOW = 8;
const LATENCY_SAMPLES = 200;
const LATENCY_WARMUP_SAMPLES = 20;
const LINK_TIMEOUT_MS = 60_000;

interface ReadRun {
  seconds: number;
  bytes: number;
  cpuSeconds: Record<string, number | null>;
  minorFaults: Record<string, number | null>;
  rssMiB: Record<string, number | null>;
  load: number[];
}

interface LatencyRun {
  medianMs: number;
  p10Ms: number;
  p90Ms: number;
  minMs: number;
  maxMs: number;
  load: number[];
}

const summarize = (samples: number[]): LatencyRun => ({
  medianMs: median(samples),
  p10Ms: percentile(samples, 0.1),
  p90Ms: percentile(samples, 0.9),
  minMs: Math.min(...samples),
  maxMs: Math.max(...samples),
  load: machineLoad().loadAverage,
});

function readAt(fd: number, offset: number, length: number, into: Buffer): Buffer {
  for (let done = 0; done < length; ) {
    const n = fs.readSync(fd, into, done, length - done, offset + done);
    if (n === 0) throw new Error(`file ended at ${offset + done}`);
    done += n;
  }
  return into;
}

/** The device's raw socket: `ws` to node 2 on loopback with the relay's Host and Origin, as a browser on the relay's origin sends them. */
function socketToNode(node: RelayNodeHandle): (url: string) => RawRelaySocket {
  return (url) => {
    const target = new URL(url);
    const ws = new WebSocket(`ws://127.0.0.1:${node.port}${target.pathname}${target.search}`, {
      headers: { host: node.host, origin: node.publicUrl },
      perMessageDeflate: false,
      maxPayload: 64 * 1024 * 1024,
    });
    return ws as unknown as RawRelaySocket;
  };
}

/** Pairs a device through node 2 with the code the runtime's banner printed, then opens its channel with the stored key (as the app does). */
async function pairedRelayClient(produced: ProducedOutput, node: RelayNodeHandle): Promise<RpcClient> {
  const link = relayLinkInBanner(produced.runtime.output());
  const location = { protocol: 'http:', host: node.host };
  const createSocket = socketToNode(node);
  const pairing = await pairThroughRelay(link, 'relay bench device', location, createSocket);
  if (!pairing.relay) throw new Error('the pairing holds no relay credential');
  // A Node client seals with Node's AES-GCM, as the runtime does; a browser's is WebCrypto's.
  const client = new RpcClient(openRelayChannel(pairing.relay, location, { v: 1 }, createSocket, nodeFrameAead({ openInPlace: true })));
  await client.opened;
  return client;
}

/**
 * The path's floor: protocol v1 straight through two bare forwarders and the same nats-server to
 * the runtime's /rpc, authenticated with the scripts' token as the direct client is.
 */
async function bareHopClient(natsUrl: string, runtime: RuntimeProcess, children: ChildProcess[]): Promise<{ client: RpcClient; pids: number[] }> {
  const desktopSide = await spawnBenchChild('bareNatsHop.ts', ['desktop-side', natsUrl, String(runtime.port), runtime.appHost]);
  children.push(desktopSide.child);
  const deviceSide = await spawnBenchChild('bareNatsHop.ts', ['device-side', natsUrl]);
  children.push(deviceSide.child);
  const ws = new WebSocket(`ws://127.0.0.1:${deviceSide.port}/`, { perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
  const client = new RpcClient(ws as unknown as WebSocketLike);
  await client.opened;
  await client.call('auth.hello', { token: TEST_TOKEN, protocolVersion: PROTOCOL_VERSION });
  return { client, pids: [desktopSide.child.pid!, deviceSide.child.pid!] };
}

export const relayChannel: Benchmark = {
  name: 'relay-channel',
  async run(progress): Promise<BenchOutcome> {
    const { totalBytes, rounds, overridden } = benchSettings(GIB, 3);
    let nats: NatsServer | undefined;
    const nodes: RelayNodeHandle[] = [];
    let produced: ProducedOutput | undefined;
    let relay: RpcClient | undefined;
    let floor: RpcClient | undefined;
    const bareHops: ChildProcess[] = [];
    let artifactFd: number | undefined;
    try {
      nats = await startNatsServer();
      // The desktop's outbound link goes to the public port, node 1's; the device goes to node 2.
      const publicPort = await freePort();
      const node1 = await startRelayChild(nats.url, 'node1', publicPort, [], publicPort);
      nodes.push(node1);
      const node2 = await startRelayChild(nats.url, 'node2', publicPort);
      nodes.push(node2);
      const relayUrl = node1.publicUrl;
      progress(`RLY-3: producing a ${formatSize(totalBytes)} command output in a runtime linked to ${relayUrl}`);
      produced = await produceOutput(totalBytes, SEED, progress, { wrap: (command) => [...command, '--relay', relayUrl] });
      const runtime = produced.runtime;
      await waitUntil(() => /desktop linked/.test(node1.output()), () => `the desktop links to node 1:\n${node1.output()}\n${runtime.output()}`, LINK_TIMEOUT_MS);
      const relayClient = (relay = await pairedRelayClient(produced, node2));
      const { client: direct, source, sourceSha256 } = produced;
      const bare = await bareHopClient(nats.url, runtime, bareHops);
      const floorClient = (floor = bare.client);
      const fd = (artifactFd = fs.openSync(produced.artifactFile, 'r'));
      const meter = new ProcessMeter({ bench: process.pid, runtime: runtime.child.pid, node1: node1.pid, node2: node2.pid, nats: nats.pid, bare1: bare.pids[0], bare2: bare.pids[1] });

      progress('RLY-3 warm-up and SHA-256 check through the relay (untimed)');
      const digest = new OrderedDigest();
      const readAll = (client: RpcClient, onPage?: (offset: number, bytes: Buffer) => void) =>
        readOutputWindowed(client, source, { window: READ_WINDOW, pageBytes: PAGE_BYTES, transfer: 'binary' }, onPage);
      await readAll(relayClient, (offset, bytes) => digest.add(offset, bytes));
      const sha = digest.digest();
      if (sha !== sourceSha256) throw new Error(`a whole read through the relay returned SHA-256 ${sha}, the source is ${sourceSha256}`);
      await readAll(direct);
      await readAll(floorClient);

      const timed = async (what: string, client: RpcClient): Promise<ReadRun> => {
        const { value, cpuSeconds, minorFaults, rssMiB } = await meter.measure(async () => {
          const started = now();
          const bytes = await readAll(client);
          return { bytes, seconds: (now() - started) / 1000 };
        });
        if (value.bytes !== totalBytes) throw new Error(`${what} read ${value.bytes} bytes, expected ${totalBytes}`);
        return { ...value, cpuSeconds, minorFaults, rssMiB, load: machineLoad().loadAverage };
      };
      const gibPerSecond = (run: ReadRun) => run.bytes / GIB / run.seconds;
      progress(`RLY-3a: whole ${formatSize(totalBytes)} read, ${READ_WINDOW} requests in flight`);
      const reads = await rotateRounds(
        rounds,
        {
          relay: () => timed('the read through the relay', relayClient),
          floor: () => timed('the read through the bare hops', floorClient),
          direct: () => timed('the direct read', direct),
        },
        progress,
        (run) => `${gibPerSecond(run).toFixed(2)} GiB/s (CPU s ${JSON.stringify(run.cpuSeconds)}, minor faults ${JSON.stringify(run.minorFaults)}, load ${run.load[0]})`,
      );

      const checkBuffer = Buffer.allocUnsafe(PAGE_BYTES);
      const lastOffset = Math.max(0, totalBytes - PAGE_BYTES);
      const pageLength = Math.min(PAGE_BYTES, totalBytes);
      const latencyOf = async (client: RpcClient, outputSource: OutputSource, seed: number, samples: number): Promise<number[]> => {
        const random = seededRandom(seed);
        const times: number[] = [];
        for (let i = 0; i < samples; i++) {
          const offset = randomInt(random, 0, lastOffset);
          const started = now();
          const { bytes } = await readOutputPage(client, outputSource, 'binary', offset, pageLength);
          times.push(now() - started);
          if (!bytes.equals(readAt(fd, offset, pageLength, checkBuffer.subarray(0, pageLength)))) throw new Error(`read at ${offset} returned other bytes than the artifact holds`);
        }
        return times;
      };
      progress(`RLY-3b: one ${formatSize(PAGE_BYTES)} page at a random offset`);
      const latencyContenders = {
        relay: (seed: number, n: number) => latencyOf(relayClient, source, seed, n),
        floor: (seed: number, n: number) => latencyOf(floorClient, source, seed, n),
        direct: (seed: number, n: number) => latencyOf(direct, source, seed, n),
      };
      for (const measure of Object.values(latencyContenders)) await measure(SEED - 1, LATENCY_WARMUP_SAMPLES);
      // Both contenders of a round read the same seeded offsets.
      const latency = await rotateRounds(
        rounds,
        {
          relay: async (round: number) => summarize(await latencyContenders.relay(SEED + round, LATENCY_SAMPLES)),
          floor: async (round: number) => summarize(await latencyContenders.floor(SEED + round, LATENCY_SAMPLES)),
          direct: async (round: number) => summarize(await latencyContenders.direct(SEED + round, LATENCY_SAMPLES)),
        },
        progress,
        (run) => `median ${run.medianMs.toFixed(2)} ms (p10 ${run.p10Ms.toFixed(2)}, p90 ${run.p90Ms.toFixed(2)}, load ${run.load[0]})`,
      );

      const throughput = (runs: ReadRun[]) => median(runs.map(gibPerSecond));
      const latencyMedian = (runs: LatencyRun[]) => median(runs.map((r) => r.medianMs));
      const size = formatSize(totalBytes);
      // Contenders by name, as the rounds name them; the floor is what the same hops cost with
      // nothing done on them (no channel, no encryption), so its lines carry no target.
      const NAMES = { relay: 'through the relay', floor: 'bare hops', direct: 'direct /rpc' } as const;
      type Contender = keyof typeof NAMES;
      const readLine = (label: string, ours: Contender, reference: Contender, target: number | null): Comparison => ({
        rule: 'RLY-3',
        label,
        unit: 'GiB/s',
        better: 'higher',
        oursName: NAMES[ours],
        referenceName: NAMES[reference],
        ours: throughput(reads[ours]),
        reference: throughput(reads[reference]),
        target,
      });
      const latencyLine = (label: string, ours: Contender, reference: Contender, target: number | null): Comparison => ({
        rule: 'RLY-3',
        label,
        unit: 'ms',
        better: 'lower',
        oursName: NAMES[ours],
        referenceName: NAMES[reference],
        ours: latencyMedian(latency[ours]),
        reference: latencyMedian(latency[reference]),
        target,
      });
      const page = formatSize(PAGE_BYTES);
      const comparisons: Comparison[] = [
        readLine(`read ${size} through the relay, ${READ_WINDOW} in flight`, 'relay', 'direct', 0.5),
        latencyLine(`${page} read latency through the relay`, 'relay', 'direct', 1.5),
        readLine(`read ${size} through bare hops and NATS (the path's floor), ${READ_WINDOW} in flight`, 'floor', 'direct', null),
        latencyLine(`${page} read latency through bare hops and NATS (the path's floor)`, 'floor', 'direct', null),
        readLine(`read ${size}: the relay against its floor`, 'relay', 'floor', null),
        latencyLine(`${page} read latency: the relay against its floor`, 'relay', 'floor', null),
      ];
      return {
        comparisons,
        parameters: {
          totalBytes,
          overridden,
          rounds,
          seed: SEED,
          pageBytes: PAGE_BYTES,
          readWindow: READ_WINDOW,
          latencySamplesPerRound: LATENCY_SAMPLES,
          latencyWarmupSamples: LATENCY_WARMUP_SAMPLES,
          transfer: 'binary',
        },
        measurements: {
          produceSeconds: produced.produceSeconds,
          sourceSha256,
          verified:
            'SHA-256 of a whole read through the relay (untimed warm-up) against the source file; every timed read checks its byte count; every latency sample (relay, bare hops and direct) is compared with the artifact bytes after its timer stopped.',
          reads,
          latency,
          processesAfter: meter.snapshot(),
        },
        notes: [
          'Topology: nats-server; relay nodes 1 and 2 as child processes (server/relay/main.ts) serving one public origin, node 1 listening on its port; the runtime (child process) started with --relay links to node 1; the device in this process connects to node 2 on 127.0.0.1 with the relay\'s Host and Origin. No balancer in front (a deployment\'s is the kernel\'s or another machine\'s).',
          'through the relay: the app\'s RelaySocket (lib/client/relay) and RpcClient, paired with the banner\'s relay link then reopened with the stored key; every frame sealed (AES-GCM with 256-bit keys, Node\'s OpenSSL binding on both ends, as the runtime uses; a browser uses WebCrypto) on one side and opened on the other, DATA/ACK link frames, NATS between the nodes. direct: RpcClient on the runtime\'s local /rpc WebSocket. bare hops (the floor): RpcClient to a bare forwarder process that publishes each message as it is on NATS, and a second one that passes it to the runtime\'s /rpc and publishes the answers back (bench/lib/bareNatsHop.ts): the relay\'s processes and hops with no channel, encryption, windows or parts. All use transfer "binary".',
          `Whole read: ${READ_WINDOW} requests of ${PAGE_BYTES} bytes in flight (as PERF-2). Latency: one run.chatCommandOutputRead at a random offset, all contenders of a round on the same seeded offsets; each line is the median of per-round medians.`,
          'cpuSeconds per read: CPU time each process spent during that read (/proc/PID/stat; bench = this process, the device, floor and direct clients; bare1 and bare2 the floor\'s forwarders); rssMiB after it. load: the 1/5/15-minute load average after each run; the machine has 2 cores shared with other work, so every number is as busy as that says.',
        ],
      };
    } finally {
      relay?.close();
      floor?.close();
      for (const child of bareHops) child.kill('SIGKILL');
      if (artifactFd !== undefined) fs.closeSync(artifactFd);
      await produced?.close();
      for (const node of nodes) await node.stop();
      await nats?.stop();
    }
  },
};
