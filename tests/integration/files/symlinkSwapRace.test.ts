import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, type RpcClient } from '../../../lib/client/rpcClient';
import { REPO_ROOT } from '../../../server/runtime/paths';
import { bundledProgramArgs } from '../../fixtures/bundledPrograms';
import type { SwapPlan } from '../../fixtures/folderSwapper';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

const INSIDE_TEXT = 'inside the project: a file anyone may read\n';
const OUTSIDE_TEXT = 'OUTSIDE SECRET: this must never reach the network\n';
const OUTSIDE_ONLY_NAME = 'only-outside.txt';

/** Reads per method, made in concurrent batches; bounded by count and by time. */
const READS_PER_METHOD = 2500;
const BATCH = 25;
const READ_DEADLINE_MS = 45_000;

type Tally = { inside: number; outside: number; refused: number; codes: Record<string, number> };
const emptyTally = (): Tally => ({ inside: 0, outside: 0, refused: 0, codes: {} });

interface Swapper {
  child: ChildProcess;
  ready: Promise<void>;
  /** Stops the swapper and resolves with the number of swaps it made. */
  stop(): Promise<number>;
}

function startSwapper(plan: SwapPlan): Swapper {
  const child = spawn(
    process.execPath,
    [...bundledProgramArgs(path.join(REPO_ROOT, 'tests', 'fixtures', 'folderSwapper.ts')), JSON.stringify(plan)],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines = readline.createInterface({ input: child.stdout! });
  let onReady: () => void = () => {};
  let onCount: (n: number) => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const counted = new Promise<number>((resolve) => (onCount = resolve));
  lines.on('line', (line) => {
    if (line === 'ready') onReady();
    else onCount((JSON.parse(line) as { swaps: number }).swaps);
  });
  return {
    child,
    ready,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return counted;
    },
  };
}

/**
 * SEC-7, SEC-2: a local process swaps `race/d` between a real folder and a symlink to an outside
 * folder while the network reads `race/d/…` as fast as it can. Whatever a read checked before
 * opening, what it opened must be inside the project: not one answer may carry outside content.
 */
describe('SEC-7 reads through a folder swapped for a symlink never leave the project', () => {
  let base: string;
  let project: string;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let previewId: string;
  let swapper: Swapper | null = null;

  beforeAll(async () => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-race-')));
    project = path.join(base, 'project');
    const outside = path.join(base, 'outside');
    fs.mkdirSync(path.join(project, 'race', 'd'), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(project, 'race', 'd', 'file.txt'), INSIDE_TEXT);
    fs.writeFileSync(path.join(project, 'race', 'index.html'), '<!doctype html><title>race</title>');
    fs.writeFileSync(path.join(outside, 'file.txt'), OUTSIDE_TEXT);
    fs.writeFileSync(path.join(outside, OUTSIDE_ONLY_NAME), OUTSIDE_TEXT);
    fs.symlinkSync(outside, path.join(project, 'race', 'link'));
    runtime = await startRuntimeProcess({ projectDirs: [project] });
    client = await runtime.connect();
    previewId = crypto.randomBytes(16).toString('hex');
    await client.call('preview.open', { previewId, projectDirectory: project, path: 'race/index.html' });
    swapper = startSwapper({
      folder: path.join(project, 'race', 'd'),
      hold: path.join(project, 'race', 'hold'),
      link: path.join(project, 'race', 'link'),
      maxSwaps: 50_000_000,
      maxMs: 120_000,
    });
    await swapper.ready;
  });
  afterAll(async () => {
    if (swapper) await swapper.stop();
    client?.close();
    await runtime?.stop();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  /** One read: the text it answered, or the error code it was refused with. */
  const reads: Record<string, () => Promise<string>> = {
    'files.readContent': async () =>
      (await client.call('files.readContent', { projectDirectory: project, path: 'race/d/file.txt' })).text,
    'files.readBinary': async () =>
      Buffer.from(
        (await client.callBinary('files.readBinary', { projectDirectory: project, path: 'race/d/file.txt', offset: 0 }))
          .data,
      ).toString('utf8'),
    'files.readHtmlPreviewResource': async () => {
      const answer = await client.call('files.readHtmlPreviewResource', {
        previewId,
        path: '/race/d/file.txt',
        offset: 0,
      });
      if (answer.status === 404) throw new RpcError('not_found', '404');
      return Buffer.from(answer.dataBase64, 'base64').toString('utf8');
    },
    'files.list': async () => {
      const { entries } = await client.call('files.list', { projectDirectory: project, path: 'race/d' });
      return entries.some((e) => e.name === OUTSIDE_ONLY_NAME) ? OUTSIDE_TEXT : INSIDE_TEXT;
    },
  };

  async function hammer(read: () => Promise<string>): Promise<Tally> {
    const tally = emptyTally();
    const deadline = Date.now() + READ_DEADLINE_MS;
    for (let done = 0; done < READS_PER_METHOD && Date.now() < deadline; done += BATCH) {
      const answers = await Promise.allSettled(Array.from({ length: BATCH }, () => read()));
      for (const answer of answers) {
        if (answer.status === 'fulfilled') {
          if (answer.value === OUTSIDE_TEXT) tally.outside += 1;
          else if (answer.value === INSIDE_TEXT) tally.inside += 1;
          else throw new Error(`unexpected content: ${JSON.stringify(answer.value.slice(0, 80))}`);
        } else {
          if (!(answer.reason instanceof RpcError) || answer.reason.code === 'closed') throw answer.reason;
          tally.refused += 1;
          tally.codes[answer.reason.code] = (tally.codes[answer.reason.code] ?? 0) + 1;
        }
      }
    }
    return tally;
  }

  it.each(Object.keys(reads))(
    'SEC-7 %s answers no outside content while race/d is swapped',
    async (method) => {
      const tally = await hammer(reads[method]!);
      console.log(`SEC-7 race ${method}: ${JSON.stringify(tally)}`);
      // The race really ran: some reads got through the real folder, some hit the swapped state.
      expect(tally.inside).toBeGreaterThan(0);
      expect(tally.refused + tally.outside).toBeGreaterThan(0);
      expect(tally.outside).toBe(0);
      // A refusal is a typed answer, never an internal fault.
      expect(Object.keys(tally.codes).filter((code) => code !== 'not_found' && code !== 'invalid_params')).toEqual([]);
    },
    90_000,
  );

  it('SEC-7 the swapper was swapping throughout', async () => {
    const stopped = swapper!;
    swapper = null;
    expect(await stopped.stop()).toBeGreaterThan(1000);
  });
});
