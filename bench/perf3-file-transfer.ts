import fs from 'node:fs';
import path from 'node:path';
import { HTTP_FILE_CHUNK_READ_BYTES, HTTP_FILE_CHUNKS_IN_FLIGHT } from '../lib/client/fileChunks';
import { startBrowserRuntime, type BrowserRuntime } from './lib/browserRuntime';
import { writeSeededFile } from '../tests/fixtures/seededFile';
import { startFileServer, type ReferenceServer } from './lib/referenceServers';
import { benchSettings, formatSize, GIB, type Benchmark, type BenchOutcome } from './lib/report';
import { median, rotateRounds } from './lib/rounds';
import { makeTempDir } from './lib/tempDirs';

const SEED = 0xf11e5;
const FILE_NAME = 'transfer.bin';

interface Run {
  ms: number;
  bytes: number;
}

type Perf3Global = {
  perf3: {
    readOverRpc(args: Perf3Args): Promise<Run>;
    downloadOverHttp(args: Perf3Args): Promise<Run>;
    digestOverRpc(args: Perf3Args): Promise<string>;
  };
};
interface Perf3Args {
  token: string;
  projectDirectory: string;
  path: string;
  httpUrl: string;
}

/**
 * PERF-3: a file read in Chromium as the app reads it: `files.readBinary` chunks as HTTP GETs on
 * the app origin with the device's bearer token (4 MiB, four in flight, each chunk's SHA-256 and
 * the pinned version checked by readVerifiedChunks, collected into a Blob) against
 * a plain HTTP download of the same file by the same browser into a Blob.
 */
export const perf3FileTransfer: Benchmark = {
  name: 'perf3-file-transfer',
  async run(progress): Promise<BenchOutcome> {
    const { totalBytes, rounds, overridden } = benchSettings(256 * 1024 * 1024, 3);
    const project = fs.realpathSync(makeTempDir('hbcode-bench-files-'));
    const file = path.join(project, FILE_NAME);
    progress(`PERF-3: writing a ${formatSize(totalBytes)} file`);
    const sha256 = writeSeededFile(file, totalBytes, SEED);
    let harness: BrowserRuntime | undefined;
    let http: ReferenceServer | undefined;
    try {
      harness = await startBrowserRuntime(project, 'perf3.page.ts');
      http = await startFileServer(file, { 'access-control-allow-origin': '*', 'cache-control': 'no-store' });
      const page = harness.page;
      const args: Perf3Args = {
        token: harness.token,
        projectDirectory: project,
        path: FILE_NAME,
        httpUrl: `http://127.0.0.1:${http.port}/${FILE_NAME}`,
      };
      const time = (name: 'readOverRpc' | 'downloadOverHttp') =>
        page.evaluate(([fn, a]) => (globalThis as unknown as Perf3Global).perf3[fn](a), [name, args] as const);

      progress('PERF-3 warm-up and SHA-256 check (untimed)');
      const digest = await page.evaluate((a) => (globalThis as unknown as Perf3Global).perf3.digestOverRpc(a), args);
      if (digest !== sha256)
        throw new Error(`files.readBinary in Chromium returned SHA-256 ${digest}, the file is ${sha256}`);
      const check = (what: string, run: Run) => {
        if (run.bytes !== totalBytes) throw new Error(`${what} read ${run.bytes} bytes, expected ${totalBytes}`);
        return run;
      };
      check('the HTTP warm-up', await time('downloadOverHttp'));

      const results = await rotateRounds(
        rounds,
        {
          ours: async () => check('files.readBinary', await time('readOverRpc')),
          http: async () => check('the HTTP download', await time('downloadOverHttp')),
        },
        progress,
        (run) => `${(run.bytes / GIB / (run.ms / 1000)).toFixed(2)} GiB/s`,
      );
      const throughput = (runs: Run[]) => totalBytes / GIB / (median(runs.map((r) => r.ms)) / 1000);
      return {
        comparisons: [
          {
            rule: 'PERF-3',
            label: `files.readBinary of ${formatSize(totalBytes)} in Chromium, verified`,
            unit: 'GiB/s',
            better: 'higher',
            oursName: 'ours (chunks over HTTP, SHA-256 checked)',
            referenceName: 'HTTP download',
            ours: throughput(results.ours),
            reference: throughput(results.http),
            target: 0.5,
          },
        ],
        parameters: {
          totalBytes,
          rounds,
          overridden,
          chunkBytes: HTTP_FILE_CHUNK_READ_BYTES,
          chunksInFlight: HTTP_FILE_CHUNKS_IN_FLIGHT,
        },
        measurements: { oursMs: results.ours.map((r) => r.ms), httpMs: results.http.map((r) => r.ms) },
        notes: [
          'Both sides end with the whole file in a Blob in the page; throughput is the median round.',
          'Each chunk body is read straight into a buffer of its announced size (a BYOB read) and hashed as it arrives.',
          'The HTTP reference is a minimal Node server on loopback (fs.createReadStream), fetched cross-origin with CORS.',
        ],
      };
    } finally {
      await http?.close();
      await harness?.close();
    }
  },
};
