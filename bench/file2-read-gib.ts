import fs from 'node:fs';
import path from 'node:path';
import { FILE_CHUNK_READ_BYTES } from '../lib/client/fileChunks';
import { FILE_CHUNK_BYTES } from '../lib/protocol/files';
import { startRuntimeProcess } from '../tests/fixtures/runtimeProcess';
import { writeSeededFile } from '../tests/fixtures/seededFile';
import { readThroughVerifiedChunks } from '../tests/fixtures/verifiedRead';
import { benchSettings, formatSize, GIB, type Benchmark, type BenchOutcome } from './lib/report';
import { makeTempDir } from './lib/tempDirs';

/**
 * FILE-2 at full scale: a 1 GiB file through `files.readBinary` and the app's verified chunk
 * reader over a real WebSocket, byte-identical (tests/integration/files/readMethods.test.ts reads
 * 16 MiB the same way). A wrong byte, chunk count or chunk size fails the run.
 */
export const file2ReadGib: Benchmark = {
  name: 'file2-read-gib',
  async run(progress): Promise<BenchOutcome> {
    const { totalBytes } = benchSettings(GIB, 1);
    if (totalBytes % FILE_CHUNK_READ_BYTES !== 0)
      throw new Error(`HBCODE_BENCH_BYTES must be a multiple of ${FILE_CHUNK_READ_BYTES}`);
    const project = fs.realpathSync(makeTempDir('hbcode-bench-read-'));
    progress(`FILE-2: writing a ${formatSize(totalBytes)} file`);
    const expected = writeSeededFile(path.join(project, 'huge.bin'), totalBytes, 7);
    const runtime = await startRuntimeProcess({ projectDirs: [project] });
    const client = await runtime.connect();
    try {
      const started = performance.now();
      const read = await readThroughVerifiedChunks(client, { projectDirectory: project, path: 'huge.bin' });
      const ms = performance.now() - started;
      if (read.bytes !== totalBytes || read.sha256 !== expected)
        throw new Error(
          `read ${read.bytes} bytes with SHA-256 ${read.sha256}; the file has ${totalBytes}, ${expected}`,
        );
      if (read.chunks !== totalBytes / FILE_CHUNK_READ_BYTES || read.largestChunk > FILE_CHUNK_BYTES)
        throw new Error(`${read.chunks} chunks, the largest ${read.largestChunk} bytes`);
      return {
        comparisons: [],
        parameters: { bytes: totalBytes, chunkBytes: FILE_CHUNK_READ_BYTES },
        measurements: { ms: Math.round(ms), gibPerSecond: totalBytes / GIB / (ms / 1000), chunks: read.chunks },
        notes: [
          'Byte-identical (SHA-256 of the whole file) through the verified chunk reader, every chunk at most 4 MiB.',
        ],
      };
    } finally {
      client.close();
      await runtime.stop();
    }
  },
};
