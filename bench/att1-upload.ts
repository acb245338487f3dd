import { ATTACHMENT_CHUNK_BYTES } from '../lib/protocol/attachments';
import { UPLOAD_CHUNKS_IN_FLIGHT } from '../lib/client/attachments/uploadAttachment';
import type { Att1Args, Att1Run } from './browser/att1.page';
import { startBrowserRuntime, type BrowserRuntime } from './lib/browserRuntime';
import { benchSettings, formatSize, GIB, type Benchmark, type BenchOutcome } from './lib/report';
import { median, rotateRounds } from './lib/rounds';
import { makeTempDir } from './lib/tempDirs';
import { startUploadServer } from './lib/uploadServer';

const SEED = 0xa771;

type Att1Global = {
  att1: {
    uploadThroughChunks(a: Att1Args): Promise<Att1Run>;
    uploadOverHttp(a: Att1Args): Promise<Att1Run>;
    hashMs(a: Att1Args): Promise<number>;
  };
};

/**
 * ATT-1: a 64 MiB attachment uploaded in Chromium through the app's chunked path (attachments.begin,
 * then 1 MiB chunks each with its SHA-256 as HTTP PUTs with the device's bearer token, eight in
 * flight, each written and synced before it is confirmed, in order) against one plain fetch POST of the same bytes to a minimal Node server on
 * loopback that writes them and syncs once. Target: at least 0.5 of the plain upload.
 */
export const att1Upload: Benchmark = {
  name: 'att1-upload',
  async run(progress): Promise<BenchOutcome> {
    const { totalBytes, rounds, overridden } = benchSettings(64 * 1024 * 1024, 5);
    const project = makeTempDir('hbcode-bench-upload-project-');
    let harness: BrowserRuntime | undefined;
    const http = await startUploadServer(makeTempDir('hbcode-bench-upload-http-'));
    try {
      harness = await startBrowserRuntime(project, 'att1.page.ts');
      const observer = await harness.runtime.connect();
      const { projects } = await observer.call('projects.list');
      const { session } = await observer.call('sessions.create', { projectId: projects[0]!.id, agent: 'shell' });
      observer.close();
      const page = harness.page;
      let round = 0;
      const args = (): Att1Args => ({
        token: harness!.token,
        sessionId: session.id,
        httpUrl: `http://127.0.0.1:${http.port}/upload`,
        totalBytes,
        seed: SEED,
        round: round++,
      });
      const call = (name: 'uploadThroughChunks' | 'uploadOverHttp') =>
        page.evaluate(([fn, a]) => (globalThis as unknown as Att1Global).att1[fn](a), [name, args()] as const);
      const check = (what: string, run: Att1Run) => {
        if (run.bytes !== totalBytes) throw new Error(`${what} stored ${run.bytes} bytes, expected ${totalBytes}`);
        return run;
      };
      progress(`ATT-1: warm-up with a ${formatSize(totalBytes)} file (untimed)`);
      const hashMs = await page.evaluate((a) => (globalThis as unknown as Att1Global).att1.hashMs(a), args());
      check('the chunked warm-up', await call('uploadThroughChunks'));
      check('the HTTP warm-up', await call('uploadOverHttp'));

      const results = await rotateRounds(
        rounds,
        {
          ours: async () => check('the chunked upload', await call('uploadThroughChunks')),
          http: async () => check('the plain POST', await call('uploadOverHttp')),
        },
        progress,
        (run) => `${(run.bytes / GIB / (run.ms / 1000)).toFixed(2)} GiB/s`,
      );
      const throughput = (runs: Att1Run[]) => totalBytes / GIB / (median(runs.map((r) => r.ms)) / 1000);
      return {
        comparisons: [
          {
            rule: 'ATT-1',
            label: `attachment upload of ${formatSize(totalBytes)} in Chromium, chunked and verified`,
            unit: 'GiB/s',
            better: 'higher',
            oursName: 'ours (1 MiB chunks over HTTP, SHA-256 each, synced before confirmed)',
            referenceName: 'plain fetch POST',
            ours: throughput(results.ours),
            reference: throughput(results.http),
            target: 0.5,
          },
        ],
        parameters: {
          totalBytes,
          rounds,
          overridden,
          chunkBytes: ATTACHMENT_CHUNK_BYTES,
          chunksInFlight: UPLOAD_CHUNKS_IN_FLIGHT,
        },
        measurements: {
          oursMs: results.ours.map((r) => r.ms),
          httpMs: results.http.map((r) => r.ms),
          wholeFileSha256Ms: hashMs,
        },
        notes: [
          'Both sides start from the same Blob in the page and end with the bytes on disk, synced; throughput is the median round.',
          "The whole file's SHA-256 (wholeFileSha256Ms) is taken once when a file is attached, as the composer does, and is not in the timed rounds.",
          'The plain upload is one fetch POST to a minimal Node server on loopback that writes the body as it arrives and fsyncs once.',
        ],
      };
    } finally {
      await http.close();
      await harness?.close();
    }
  },
};
