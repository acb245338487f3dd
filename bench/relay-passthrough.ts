/**
 * RLY-6, RLY-8: reading a command output through the relay's TLS passthrough against reading it
 * directly, one node and two nodes, with each path's floor, in one run. A real nats-server, two
 * relay nodes as child processes with a TLS port each (node 1 listens on the public port, so the
 * desktop's link lands there), the runtime started with `--relay` and a certificate for its
 * relay names (TLS ends in the runtime), and devices in this process:
 *
 *   one node   device → node 1's TLS port → (joined on node 1, RLY-8) → link → runtime
 *   two nodes  device → node 2's TLS port → NATS → node 1 → link → runtime
 *   floors     the same hops with nothing done on them: plain TCP through a bare forwarder
 *              process (one node), or two bare processes and the same nats-server (two nodes),
 *              to the runtime's own port; no TLS, no link frames, no windows (bench/lib/bareTcpHop.ts)
 *   direct     the runtime's local /rpc
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import WebSocket from 'ws';
import { RpcClient, type WebSocketLike } from '../lib/client/rpcClient';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES, PROTOCOL_VERSION } from '../lib/protocol/version';
import { loadOrCreateRelayIdentity } from '../server/relayLink/relayIdentity';
import { relayNamesFor, type RelayNames } from '../server/relayLink/relayNameServer';
import { startNatsServer, type NatsServer } from '../tests/fixtures/natsServer';
import { makeTestCertificates, type TestCertificates } from '../tests/fixtures/relay/testCertificates';
import { startRelayChild, type RelayNodeHandle } from '../tests/fixtures/relayNodes';
import { freePort, TEST_TOKEN } from '../tests/fixtures/runtimeProcess';
import { waitUntil } from '../tests/fixtures/waitUntil';
import { spawnBenchChild } from './lib/benchChild';
import { ProcessMeter } from './lib/procUsage';
import { produceOutput, type ProducedOutput } from './lib/producedOutput';
import { OrderedDigest, pageReadLatencies, readOutputWindowed } from './lib/readClients';
import {
  benchSettings,
  formatSize,
  GIB,
  machineLoad,
  type Benchmark,
  type BenchOutcome,
  type Comparison,
} from './lib/report';
import { median, now, percentile, rotateRounds } from './lib/rounds';

const SEED = 0x7a55e1;
const PAGE_BYTES = MAX_COMMAND_OUTPUT_RANGE_BYTES;
/** Requests in flight while reading a whole output, as PERF-2 and the app's reader keep them. */
const READ_WINDOW = 8;
const LATENCY_SAMPLES = Number(process.env.HBCODE_BENCH_LATENCY_SAMPLES ?? 200);
const LATENCY_WARMUP_SAMPLES = 20;
const LINK_TIMEOUT_MS = 60_000;
const MAX_PAYLOAD = 64 * 1024 * 1024;

const NAMES = {
  oneNode: 'relay, one node',
  twoNodes: 'relay, two nodes',
  floor1: 'bare hop (one node’s floor)',
  floor2: 'bare hops and NATS (two nodes’ floor)',
  direct: 'direct /rpc',
} as const;
type Contender = keyof typeof NAMES;

interface ReadRun {
  seconds: number;
  bytes: number;
  cpuSeconds: Record<string, number | null>;
  load: number[];
}

interface LatencyRun {
  medianMs: number;
  p10Ms: number;
  p90Ms: number;
  load: number[];
}

/** /rpc on the desktop's relay name through a node's TLS port, trusting the test CA, signed in with the scripts' token. */
async function passthroughClient(tlsPort: number, names: RelayNames, certs: TestCertificates): Promise<RpcClient> {
  const app = new URL(names.appOrigin);
  const ws = new WebSocket(`wss://127.0.0.1:${tlsPort}/rpc`, {
    servername: app.hostname,
    ca: certs.caPem,
    headers: { host: app.host },
    origin: names.appOrigin,
    perMessageDeflate: false,
    maxPayload: MAX_PAYLOAD,
  } as WebSocket.ClientOptions);
  return signedIn(ws);
}

async function signedIn(ws: WebSocket): Promise<RpcClient> {
  const client = new RpcClient(ws as unknown as WebSocketLike);
  await client.opened;
  await client.call('auth.hello', { token: TEST_TOKEN, protocolVersion: PROTOCOL_VERSION });
  return client;
}

/** Plain /rpc through a bare TCP path whose entry listens on `port`, with the runtime's own Host and Origin. */
function bareClient(port: number, appHost: string): Promise<RpcClient> {
  return signedIn(
    new WebSocket(`ws://127.0.0.1:${port}/rpc`, {
      headers: { host: appHost },
      origin: `http://${appHost}`,
      perMessageDeflate: false,
      maxPayload: MAX_PAYLOAD,
    }),
  );
}

export const relayPassthrough: Benchmark = {
  name: 'relay-passthrough',
  async run(progress): Promise<BenchOutcome> {
    const { totalBytes, rounds, overridden } = benchSettings(GIB, 3);
    let nats: NatsServer | undefined;
    const nodes: RelayNodeHandle[] = [];
    const bare: ChildProcess[] = [];
    const clients: RpcClient[] = [];
    let produced: ProducedOutput | undefined;
    let certs: TestCertificates | undefined;
    let artifactFd: number | undefined;
    try {
      nats = await startNatsServer();
      const publicPort = await freePort();
      const tlsPorts = [await freePort(), await freePort()];
      const node1 = await startRelayChild(
        nats.url,
        'node1',
        publicPort,
        ['--tls-port', String(tlsPorts[0])],
        publicPort,
      );
      nodes.push(node1);
      const node2 = await startRelayChild(nats.url, 'node2', publicPort, ['--tls-port', String(tlsPorts[1])]);
      nodes.push(node2);
      let names: RelayNames | undefined;
      progress(`RLY-6: producing a ${formatSize(totalBytes)} command output in a runtime linked to ${node1.publicUrl}`);
      produced = await produceOutput(totalBytes, SEED, progress, async (dataDir) => {
        // The relay identity first: the certificate names the desktop id it makes.
        const identity = await loadOrCreateRelayIdentity(dataDir);
        names = relayNamesFor(new URL(node1.publicUrl), identity.desktopId, tlsPorts[0]!);
        certs = makeTestCertificates(names.serverNames);
        return {
          wrap: (command) => [
            ...command,
            '--relay',
            node1.publicUrl,
            '--relay-cert',
            certs!.certFile,
            '--relay-key',
            certs!.keyFile,
            '--relay-tls-port',
            String(tlsPorts[0]),
          ],
        };
      });
      const { runtime, client: direct, source, sourceSha256 } = produced;
      await waitUntil(
        () => /desktop linked/.test(node1.output()),
        () => `the desktop links to node 1:\n${node1.output()}\n${runtime.output()}`,
        LINK_TIMEOUT_MS,
      );

      const forwarder = await spawnBenchChild('bareTcpHop.ts', ['forwarder', String(runtime.port)]);
      const desktopSide = await spawnBenchChild('bareTcpHop.ts', ['desktop-side', nats.url, String(runtime.port)]);
      const deviceSide = await spawnBenchChild('bareTcpHop.ts', ['device-side', nats.url]);
      bare.push(forwarder.child, desktopSide.child, deviceSide.child);
      const contenders: Record<Contender, RpcClient> = {
        oneNode: await passthroughClient(tlsPorts[0]!, names!, certs!),
        twoNodes: await passthroughClient(tlsPorts[1]!, names!, certs!),
        floor1: await bareClient(forwarder.port, runtime.appHost),
        floor2: await bareClient(deviceSide.port, runtime.appHost),
        direct,
      };
      clients.push(contenders.oneNode, contenders.twoNodes, contenders.floor1, contenders.floor2);
      const meter = new ProcessMeter({
        bench: process.pid,
        runtime: runtime.child.pid,
        node1: node1.pid,
        node2: node2.pid,
        nats: nats.pid,
        bareForwarder: forwarder.child.pid,
        bareDesktopSide: desktopSide.child.pid,
        bareDeviceSide: deviceSide.child.pid,
      });
      const fd = (artifactFd = fs.openSync(produced.artifactFile, 'r'));
      const readAll = (client: RpcClient, onPage?: (offset: number, bytes: Buffer) => void) =>
        readOutputWindowed(client, source, { window: READ_WINDOW, pageBytes: PAGE_BYTES, transfer: 'binary' }, onPage);

      progress('warm-up and SHA-256 check of a whole read on every path (untimed)');
      for (const [name, client] of Object.entries(contenders)) {
        const digest = new OrderedDigest();
        await readAll(client, (offset, bytes) => digest.add(offset, bytes));
        const sha = digest.digest();
        if (sha !== sourceSha256)
          throw new Error(`a whole read on ${name} returned SHA-256 ${sha}, the source is ${sourceSha256}`);
      }
      const twoNodeStats = await node2.readStats();
      if (twoNodeStats.passthroughConnections !== 1)
        throw new Error(`node 2 holds ${twoNodeStats.passthroughConnections} passthrough streams, expected 1`);

      const timed = async (name: Contender): Promise<ReadRun> => {
        const { value, cpuSeconds } = await meter.measure(async () => {
          const started = now();
          const bytes = await readAll(contenders[name]);
          return { bytes, seconds: (now() - started) / 1000 };
        });
        if (value.bytes !== totalBytes) throw new Error(`${name} read ${value.bytes} bytes, expected ${totalBytes}`);
        return { ...value, cpuSeconds, load: machineLoad().loadAverage };
      };
      const gibPerSecond = (run: ReadRun) => run.bytes / GIB / run.seconds;
      progress(`whole ${formatSize(totalBytes)} read, ${READ_WINDOW} requests in flight`);
      const reads = await rotateRounds(
        rounds,
        {
          oneNode: () => timed('oneNode'),
          twoNodes: () => timed('twoNodes'),
          floor1: () => timed('floor1'),
          floor2: () => timed('floor2'),
          direct: () => timed('direct'),
        },
        progress,
        (run) =>
          `${gibPerSecond(run).toFixed(3)} GiB/s (CPU s ${JSON.stringify(run.cpuSeconds)}, load ${run.load.join(' ')})`,
      );

      const latencyOf = (client: RpcClient, seed: number, samples: number) =>
        pageReadLatencies(client, source, fd, PAGE_BYTES, seed, samples);
      progress(`one ${formatSize(PAGE_BYTES)} page at a random offset, ${LATENCY_SAMPLES} per round`);
      for (const client of Object.values(contenders)) await latencyOf(client, SEED - 1, LATENCY_WARMUP_SAMPLES);
      const latencyRound = async (name: Contender, round: number): Promise<LatencyRun> => {
        const samples = await latencyOf(contenders[name], SEED + round, LATENCY_SAMPLES);
        return {
          medianMs: median(samples),
          p10Ms: percentile(samples, 0.1),
          p90Ms: percentile(samples, 0.9),
          load: machineLoad().loadAverage,
        };
      };
      // Every contender of a round reads the same seeded offsets.
      const latency = await rotateRounds(
        rounds,
        {
          oneNode: (round) => latencyRound('oneNode', round),
          twoNodes: (round) => latencyRound('twoNodes', round),
          floor1: (round) => latencyRound('floor1', round),
          floor2: (round) => latencyRound('floor2', round),
          direct: (round) => latencyRound('direct', round),
        },
        progress,
        (run) =>
          `median ${run.medianMs.toFixed(2)} ms (p10 ${run.p10Ms.toFixed(2)}, p90 ${run.p90Ms.toFixed(2)}, load ${run.load.join(' ')})`,
      );

      const size = formatSize(totalBytes);
      const page = formatSize(PAGE_BYTES);
      const readLine = (
        label: string,
        rule: string,
        ours: Contender,
        reference: Contender,
        target: number | null,
      ): Comparison => ({
        rule,
        label,
        unit: 'GiB/s',
        better: 'higher',
        oursName: NAMES[ours],
        referenceName: NAMES[reference],
        ours: median(reads[ours].map(gibPerSecond)),
        reference: median(reads[reference].map(gibPerSecond)),
        target,
      });
      const latencyLine = (
        label: string,
        rule: string,
        ours: Contender,
        reference: Contender,
        target: number | null,
      ): Comparison => ({
        rule,
        label,
        unit: 'ms',
        better: 'lower',
        oursName: NAMES[ours],
        referenceName: NAMES[reference],
        ours: median(latency[ours].map((r) => r.medianMs)),
        reference: median(latency[reference].map((r) => r.medianMs)),
        target,
      });
      const comparisons: Comparison[] = [
        readLine(
          `one node: read ${size} through the relay (TLS ends in the runtime), ${READ_WINDOW} in flight`,
          'RLY-8',
          'oneNode',
          'direct',
          0.5,
        ),
        latencyLine(`one node: ${page} read latency through the relay`, 'RLY-8', 'oneNode', 'direct', 2),
        readLine(`one node: read ${size}, the relay against its floor`, 'RLY-8', 'oneNode', 'floor1', null),
        latencyLine(`one node: ${page} latency, the relay against its floor`, 'RLY-8', 'oneNode', 'floor1', null),
        readLine(
          `two nodes: read ${size}, the relay against its floor (bare hops and NATS)`,
          'RLY-6',
          'twoNodes',
          'floor2',
          0.5,
        ),
        latencyLine(`two nodes: ${page} latency, the relay against its floor`, 'RLY-6', 'twoNodes', 'floor2', 1.5),
        readLine(`two nodes: read ${size} through the relay against direct`, 'RLY-6', 'twoNodes', 'direct', null),
        latencyLine(`two nodes: ${page} latency through the relay against direct`, 'RLY-6', 'twoNodes', 'direct', null),
        readLine(
          `two nodes' floor: read ${size} through bare hops and NATS against direct`,
          'RLY-6',
          'floor2',
          'direct',
          null,
        ),
        latencyLine(`two nodes' floor: ${page} latency against direct`, 'RLY-6', 'floor2', 'direct', null),
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
          transfer: 'binary',
        },
        measurements: {
          produceSeconds: produced.produceSeconds,
          sourceSha256,
          verified:
            'SHA-256 of an untimed whole read on every path against the source file; every timed read checks its byte count; every latency sample is compared with the artifact bytes after its timer stopped.',
          reads,
          latency,
          processesAfter: meter.snapshot(),
        },
        notes: [
          'Topology: nats-server; relay nodes 1 and 2 as child processes (the relay bundle), each with a TLS port; the runtime (child process) started with --relay (node 1’s port), --relay-cert/--relay-key for its two relay names (a throwaway test CA) and --relay-tls-port. Devices are ws clients in this process trusting the test CA, on the desktop’s relay name, signed in with the scripts’ token; TLS ends in the runtime (Node’s OpenSSL on both ends).',
          'one node: the device connects to node 1’s TLS port, where the desktop’s link is: the stream is joined on the node (RLY-8), no NATS. two nodes: the device connects to node 2’s TLS port; DATA crosses NATS in parts to node 1 and the link.',
          'Floors: the same processes’ hops with nothing done on them: plain TCP bytes through one bare forwarder process (one node), or through a bare device-side process, the same nats-server and a bare desktop-side process (two nodes), to the runtime’s own port: no TLS, no link frames, no windows. direct: the runtime’s local /rpc.',
          `Whole read: ${READ_WINDOW} requests of ${PAGE_BYTES} bytes in flight (as PERF-2). Latency: one run.chatCommandOutputRead at a random offset; each line is the median of per-round medians.`,
          'cpuSeconds per read: CPU time each process spent during that read (/proc). load: the 1/5/15-minute load average after each run; the machine has 2 cores shared with other work, so every number is as busy as that says.',
        ],
      };
    } finally {
      for (const client of clients) client.close();
      for (const child of bare) child.kill('SIGKILL');
      if (artifactFd !== undefined) fs.closeSync(artifactFd);
      await produced?.close();
      for (const node of nodes) await node.stop();
      await nats?.stop();
      certs?.remove();
    }
  },
};
