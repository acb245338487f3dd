import crypto from 'node:crypto';
import fs from 'node:fs';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../lib/protocol/version';
import { produceOutput, type ProducedOutput } from './lib/producedOutput';
import { randomInt, seededRandom } from './lib/prng';
import {
  downloadOverHttp,
  EchoClient,
  OrderedDigest,
  readOutputPage,
  readOutputWindowed,
  type Transfer,
} from './lib/readClients';
import {
  replyRequest,
  spawnFileServer,
  startEchoServer,
  startFileServer,
  type ReferenceProcess,
  type ReferenceServer,
} from './lib/referenceServers';
import { benchSettings, formatSize, GIB, type Benchmark, type BenchOutcome, type Comparison } from './lib/report';
import { median, now, percentile, rotateRounds } from './lib/rounds';

const SEED = 0x0ca75eed;
const PAGE_BYTES = MAX_COMMAND_OUTPUT_RANGE_BYTES;
/** Requests in flight while reading a whole output, as a good client keeps them. */
const READ_WINDOW = 8;
const LATENCY_SAMPLES = 200;
const LATENCY_WARMUP_SAMPLES = 20;
const TRANSFERS: readonly Transfer[] = ['binary', 'base64'];

interface ReadRun {
  seconds: number;
  bytes: number;
}

interface LatencyRun {
  medianMs: number;
  p10Ms: number;
  p90Ms: number;
  minMs: number;
  maxMs: number;
}

const summarize = (samples: number[]): LatencyRun => ({
  medianMs: median(samples),
  p10Ms: percentile(samples, 0.1),
  p90Ms: percentile(samples, 0.9),
  minMs: Math.min(...samples),
  maxMs: Math.max(...samples),
});

function readAt(fd: number, offset: number, length: number, into: Buffer = Buffer.allocUnsafe(length)): Buffer {
  for (let done = 0; done < length;) {
    const n = fs.readSync(fd, into, done, length - done, offset + done);
    if (n === 0) throw new Error(`file ended at ${offset + done}`);
    done += n;
  }
  return into;
}

export const perf2OutputRead: Benchmark = {
  name: 'perf2-output-read',
  async run(progress): Promise<BenchOutcome> {
    const { totalBytes, rounds, overridden } = benchSettings(GIB, 3);
    progress(`PERF-2: producing a ${formatSize(totalBytes)} command output in the runtime`);
    let produced: ProducedOutput | undefined;
    let ownProcess: ReferenceProcess | undefined;
    let fileServer: ReferenceServer | undefined;
    let echoServer: ReferenceServer | undefined;
    let echo: EchoClient | undefined;
    let artifactFd: number | undefined;
    try {
      produced = await produceOutput(totalBytes, SEED, progress);
      const { client: rpc, source, sourceFile, sourceSha256 } = produced;
      const fd = (artifactFd = fs.openSync(produced.artifactFile, 'r'));

      // The headline reference servers run in the clients' process: no cross-process wake-up, so
      // the stricter reference. The file server in a child process of its own, as the runtime
      // runs, gives an informational line.
      fileServer = await startFileServer(sourceFile);
      echoServer = await startEchoServer();
      ownProcess = await spawnFileServer(sourceFile);
      const echoClient = (echo = new EchoClient(echoServer.port));
      await echoClient.opened;
      const httpPort = fileServer.port;
      const ownProcessHttpPort = ownProcess.httpPort;

      // Warm-up that doubles as the check: every whole read hashed, outside any timing.
      progress('PERF-2 warm-up and SHA-256 check (untimed)');
      for (const transfer of TRANSFERS) {
        const digest = new OrderedDigest();
        await readOutputWindowed(
          rpc,
          source,
          { window: READ_WINDOW, pageBytes: PAGE_BYTES, transfer },
          (offset, bytes) => digest.add(offset, bytes),
        );
        const sha = digest.digest();
        if (sha !== sourceSha256)
          throw new Error(
            `run.chatCommandOutputRead (${transfer}) returned SHA-256 ${sha}, the source is ${sourceSha256}`,
          );
      }
      for (const port of [httpPort, ownProcessHttpPort]) {
        const hash = crypto.createHash('sha256');
        await downloadOverHttp(port, (chunk) => hash.update(chunk));
        const sha = hash.digest('hex');
        if (sha !== sourceSha256)
          throw new Error(`the reference download returned SHA-256 ${sha}, the source is ${sourceSha256}`);
      }

      const timed = async (what: string, read: () => Promise<number>): Promise<ReadRun> => {
        const started = now();
        const bytes = await read();
        const seconds = (now() - started) / 1000;
        if (bytes !== totalBytes) throw new Error(`${what} read ${bytes} bytes, expected ${totalBytes}`);
        return { seconds, bytes };
      };
      const gibPerSecond = (run: ReadRun) => run.bytes / GIB / run.seconds;
      progress(`PERF-2a: whole ${formatSize(totalBytes)} read`);
      const reads = await rotateRounds(
        rounds,
        {
          oursBinary: () =>
            timed('binary reads', () =>
              readOutputWindowed(rpc, source, { window: READ_WINDOW, pageBytes: PAGE_BYTES, transfer: 'binary' }),
            ),
          oursBase64: () =>
            timed('base64 reads', () =>
              readOutputWindowed(rpc, source, { window: READ_WINDOW, pageBytes: PAGE_BYTES, transfer: 'base64' }),
            ),
          http: () => timed('HTTP download', () => downloadOverHttp(httpPort)),
          httpOwnProcess: () =>
            timed('HTTP download (server in its own process)', () => downloadOverHttp(ownProcessHttpPort)),
        },
        progress,
        (run) => `${gibPerSecond(run).toFixed(2)} GiB/s`,
      );

      // PERF-2b: one page at a random offset. The references read the same artifact file at the
      // same offset, then make one WebSocket round trip of the size our answer has: an echo of
      // 256 KiB raw for the binary transfer, of a string as long as the base64 page for the
      // base64 transfer; and, stricter, a small request answered with 256 KiB.
      const pageBytes = readAt(fd, 0, PAGE_BYTES);
      const pageText = pageBytes.toString('base64');
      const referenceBuffer = Buffer.allocUnsafe(PAGE_BYTES);
      const checkBuffer = Buffer.allocUnsafe(PAGE_BYTES);
      const lastOffset = totalBytes - PAGE_BYTES;
      const latencyOurs = async (transfer: Transfer, seed: number, samples: number): Promise<number[]> => {
        const random = seededRandom(seed);
        const times: number[] = [];
        for (let i = 0; i < samples; i++) {
          const offset = randomInt(random, 0, lastOffset);
          const started = now();
          const { bytes } = await readOutputPage(rpc, source, transfer, offset, PAGE_BYTES);
          times.push(now() - started);
          if (!bytes.equals(readAt(fd, offset, PAGE_BYTES, checkBuffer)))
            throw new Error(`read at ${offset} returned other bytes than the artifact holds`);
        }
        return times;
      };
      const latencyReference = async (
        message: string | Buffer,
        replyLength: number,
        seed: number,
        samples: number,
      ): Promise<number[]> => {
        const random = seededRandom(seed);
        const times: number[] = [];
        for (let i = 0; i < samples; i++) {
          const offset = randomInt(random, 0, lastOffset);
          const started = now();
          readAt(fd, offset, PAGE_BYTES, referenceBuffer);
          const reply = await echoClient.roundTrip(message);
          times.push(now() - started);
          if (reply.length !== replyLength)
            throw new Error(`the echo server answered ${reply.length} of ${replyLength}`);
        }
        return times;
      };
      progress('PERF-2b: single 256 KiB read latency');
      const latencyContenders = {
        oursBinary: (seed: number, n: number) => latencyOurs('binary', seed, n),
        oursBase64: (seed: number, n: number) => latencyOurs('base64', seed, n),
        referenceBinary: (seed: number, n: number) => latencyReference(pageBytes, PAGE_BYTES, seed, n),
        referenceText: (seed: number, n: number) => latencyReference(pageText, pageText.length, seed, n),
        referenceReply: (seed: number, n: number) => latencyReference(replyRequest(PAGE_BYTES), PAGE_BYTES, seed, n),
      };
      for (const measure of Object.values(latencyContenders)) await measure(SEED - 1, LATENCY_WARMUP_SAMPLES);
      // Every contender of a round reads the same seeded offsets.
      const latency = await rotateRounds(
        rounds,
        Object.fromEntries(
          Object.entries(latencyContenders).map(([name, measure]) => [
            name,
            async (round: number) => summarize(await measure(SEED + round, LATENCY_SAMPLES)),
          ]),
        ) as Record<keyof typeof latencyContenders, (round: number) => Promise<LatencyRun>>,
        progress,
        (run) => `median ${run.medianMs.toFixed(2)} ms (p10 ${run.p10Ms.toFixed(2)}, p90 ${run.p90Ms.toFixed(2)})`,
      );

      const throughput = (runs: ReadRun[]) => median(runs.map(gibPerSecond));
      const latencyOf = (runs: LatencyRun[]) => median(runs.map((r) => r.medianMs));
      const size = formatSize(totalBytes);
      const read = { rule: 'PERF-2', unit: 'GiB/s', better: 'higher', referenceName: 'HTTP download' } as const;
      const single = { rule: 'PERF-2', unit: 'ms', better: 'lower' } as const;
      const comparisons: Comparison[] = [
        {
          ...read,
          label: `read ${size}`,
          oursName: 'ours (binary)',
          ours: throughput(reads.oursBinary),
          reference: throughput(reads.http),
          target: 0.5,
        },
        {
          ...read,
          label: `read ${size}, base64 transfer`,
          oursName: 'ours (base64)',
          ours: throughput(reads.oursBase64),
          reference: throughput(reads.http),
          target: null,
        },
        {
          ...read,
          label: `read ${size}, HTTP server in its own process`,
          oursName: 'ours (binary)',
          ours: throughput(reads.oursBinary),
          reference: throughput(reads.httpOwnProcess),
          target: null,
        },
        {
          ...single,
          label: '256 KiB read latency',
          oursName: 'ours (binary)',
          referenceName: 'fs.readSync+ws echo 256 KiB',
          ours: latencyOf(latency.oursBinary),
          reference: latencyOf(latency.referenceBinary),
          target: 2,
        },
        {
          ...single,
          label: '256 KiB read latency, base64 transfer',
          oursName: 'ours (base64)',
          referenceName: `fs.readSync+ws echo ${formatSize(pageText.length)} text`,
          ours: latencyOf(latency.oursBase64),
          reference: latencyOf(latency.referenceText),
          target: null,
        },
        {
          ...single,
          label: '256 KiB read latency, one-way reference',
          oursName: 'ours (binary)',
          referenceName: 'fs.readSync+ws 256 KiB reply',
          ours: latencyOf(latency.oursBinary),
          reference: latencyOf(latency.referenceReply),
          target: null,
        },
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
          echoTextLength: pageText.length,
        },
        measurements: {
          produceSeconds: produced.produceSeconds,
          sourceSha256,
          verified:
            'SHA-256 of a whole read through run.chatCommandOutputRead (each transfer) and of each whole HTTP download against the source file, in the untimed warm-up; every timed read checks its byte count; every latency sample of ours is compared with the artifact bytes after its timer stopped.',
          reads,
          latency,
        },
        notes: [
          `ours: the real runtime as a child process; RpcClient (lib/client) on one WebSocket keeps ${READ_WINDOW} requests of ${PAGE_BYTES} bytes in flight. binary: transfer "binary", the bytes taken from the binary frame; base64: the v1 default, each answer decoded from base64 into a Buffer.`,
          'HTTP download: fs.createReadStream piped to the response by a minimal http server in this (the client\'s) process; the client counts the body. The "own process" line runs the same server in a child process, as the runtime runs.',
          '256 KiB latency: ours is one run.chatCommandOutputRead at a random offset, turned into bytes; the reference is fs.readSync of the same artifact file at the same offset plus one WebSocket round trip to a ws server in this process: an echo of a message of our answer\'s size (256 KiB binary; for base64, a string as long as the base64 page), or ("one-way") a small request answered with 256 KiB, as ours is.',
          'Per latency round all contenders read the same seeded offsets; each line is the median of the per-round medians.',
        ],
      };
    } finally {
      echo?.close();
      if (artifactFd !== undefined) fs.closeSync(artifactFd);
      await fileServer?.close();
      await echoServer?.close();
      await ownProcess?.close();
      await produced?.close();
    }
  },
};
