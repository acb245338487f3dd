import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RpcClient } from '../../lib/client/rpcClient';
import {
  startRuntimeProcess,
  type RuntimeProcess,
  type RuntimeProcessOptions,
} from '../../tests/fixtures/runtimeProcess';
import { createShellSession, waitForCommand } from '../../tests/fixtures/sessionHelpers';
import { deltaAt, planDeltas, randomPool, seededRandom } from './prng';
import type { OutputSource } from './readClients';
import { now } from './rounds';
import { makeTempDir, removeTempDir } from './tempDirs';

const POOL_BYTES = 64 * 1024 * 1024;
const SOURCE_NAME = 'bench-output.bin';
/** Producing the output through the shell agent is setup, not measured against a target; this bounds it. */
const PRODUCE_TIMEOUT_MS = 10 * 60 * 1000;

/** A real runtime (child process) holding one completed shell command whose output is a seeded file. */
export interface ProducedOutput {
  runtime: RuntimeProcess;
  client: RpcClient;
  source: OutputSource;
  /** The file the command printed, in the project folder. */
  sourceFile: string;
  sourceSha256: string;
  /** The command's artifact in the runtime's data folder. */
  artifactFile: string;
  produceSeconds: number;
  close(): Promise<void>;
}

/** Writes the seeded source file the shell command will print; returns its SHA-256. */
function writeSourceFile(file: string, totalBytes: number, seed: number): string {
  const random = seededRandom(seed);
  const plan = planDeltas({
    pool: randomPool(POOL_BYTES, random),
    totalBytes,
    minBytes: 512 * 1024,
    maxBytes: 1024 * 1024,
    random,
  });
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'w');
  try {
    for (let i = 0; i < plan.lengths.length; i++) {
      const chunk = deltaAt(plan, i);
      hash.update(chunk);
      for (let done = 0; done < chunk.length;) done += fs.writeSync(fd, chunk, done);
    }
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

/** How the runtime is started besides its folders: extra command-line words (e.g. `--relay URL`) and environment. */
export type ProducedRuntimeOptions = Pick<RuntimeProcessOptions, 'wrap' | 'env'>;

/**
 * Starts the runtime on temp folders, has the shell agent `cat` a seeded file of `totalBytes`,
 * waits for the command row to complete and checks that the whole output was stored.
 */
export async function produceOutput(
  totalBytes: number,
  seed: number,
  progress: (line: string) => void,
  runtimeOptions: ProducedRuntimeOptions | ((dataDir: string) => Promise<ProducedRuntimeOptions>) = {},
): Promise<ProducedOutput> {
  const projectDir = makeTempDir('hbcode-bench-project-');
  const dataDir = makeTempDir('hbcode-bench-data-');
  let runtime: RuntimeProcess | undefined;
  let client: RpcClient | undefined;
  const close = async () => {
    client?.close();
    await runtime?.stop();
    removeTempDir(projectDir);
    removeTempDir(dataDir);
  };
  try {
    const sourceFile = path.join(projectDir, SOURCE_NAME);
    const sourceSha256 = writeSourceFile(sourceFile, totalBytes, seed);
    // A function makes its options from the data folder (a relay identity made there first, say).
    const options = typeof runtimeOptions === 'function' ? await runtimeOptions(dataDir) : runtimeOptions;
    runtime = await startRuntimeProcess({ ...options, dataDir, projectDirs: [projectDir] });
    client = await runtime.connect();
    const sessionId = await createShellSession(client);
    const started = now();
    const { runId } = await client.call('chat.send', {
      sessionId,
      operationId: crypto.randomUUID(),
      text: `cat ${SOURCE_NAME}`,
    });
    const row = await waitForCommand(client, sessionId, runId, undefined, PRODUCE_TIMEOUT_MS);
    const produceSeconds = (now() - started) / 1000;
    if (row.status !== 'exited' || row.exitCode !== 0 || row.byteLength !== totalBytes || row.error) {
      throw new Error(`the shell command did not store the whole output: ${JSON.stringify(row)}`);
    }
    progress(`  the shell agent stored ${row.byteLength} bytes in ${produceSeconds.toFixed(1)} s (setup, untimed)`);
    const outputsDir = path.join(dataDir, 'command-outputs');
    const artifacts = fs.readdirSync(outputsDir).filter((name) => name.endsWith('.output'));
    if (artifacts.length !== 1) throw new Error(`expected one artifact, found ${artifacts.join(', ')}`);
    return {
      runtime,
      client,
      source: { sessionId, runId, commandId: row.commandId, generation: row.generation, byteLength: row.byteLength },
      sourceFile,
      sourceSha256,
      artifactFile: path.join(outputsDir, artifacts[0]!),
      produceSeconds,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
