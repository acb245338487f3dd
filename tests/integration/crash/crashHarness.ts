import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CatalogRow, OutputKey, PendingAppend } from '../../../server/runtime/output/catalog';
import { REPO_ROOT } from '../../../server/runtime/paths';
import { bundledProgramArgs } from '../../fixtures/bundledPrograms';
import { firstMismatch } from '../../fixtures/crashContent';
import { openCrashStore, type ChildEvent, type ChildPlan, type CrashStore } from '../../fixtures/crashPlan';

const CHILD_SCRIPT = path.join(REPO_ROOT, 'tests', 'fixtures', 'crashChild.ts');

export interface CrashDataDir {
  dataDir: string;
  sessionId: string;
  /** Adds an empty command output (catalog row and file) and returns its key. */
  addOutput(): OutputKey;
}

/**
 * Fills the empty folder `dataDir` with a project, a session and an empty command output, closed
 * again. The caller makes the folder (a test's temp folder, or a bench's): nothing here imports
 * vitest, so `npm run bench` runs the same harness.
 */
export function prepareDataDir(dataDir: string): CrashDataDir & { key: OutputKey } {
  const { db } = openCrashStore(dataDir);
  const projectId = 'prj-' + crypto.randomBytes(6).toString('hex');
  const sessionId = 'ses-' + crypto.randomBytes(6).toString('hex');
  db.prepare('INSERT INTO projects (id, name, directory, created_at) VALUES (?, ?, ?, ?)').run(
    projectId,
    'project',
    path.join(dataDir, 'project'),
    Date.now(),
  );
  db.prepare('INSERT INTO sessions (id, project_id, agent, title, created_at) VALUES (?, ?, ?, ?, ?)').run(
    sessionId,
    projectId,
    'shell',
    'crash',
    Date.now(),
  );
  db.close();
  const addOutput = (): OutputKey => {
    const opened = openCrashStore(dataDir);
    try {
      const key = { runId: 'run-' + crypto.randomBytes(6).toString('hex'), commandId: '1' };
      opened.store.create(key, sessionId);
      return key;
    } finally {
      opened.db.close();
    }
  };
  return { dataDir, sessionId, addOutput, key: addOutput() };
}

export interface RunningChild {
  /** Resolves with the next event of that name the child prints. */
  next(name: ChildEvent['event']): Promise<ChildEvent>;
  kill(): void;
  /** Resolves when the child is gone: its exit code or signal, and what it wrote to stderr. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/**
 * Starts the crash child with a plan, from its bundle (tests/fixtures/bundledPrograms.ts): plain
 * `node` starts in a fifth of the time `node --import tsx` needs, which counts in tests that start
 * the child many times. node:fs is never bundled, so the child's `fs.writeSync` is still the
 * product's. The child holds a pipe to us as its stdin.
 */
export function startChild(plan: ChildPlan): RunningChild {
  const child = spawn(process.execPath, [...bundledProgramArgs(CHILD_SCRIPT), JSON.stringify(plan)], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  let buffered = '';
  const events: ChildEvent[] = [];
  const waiters: { name: ChildEvent['event']; resolve: (e: ChildEvent) => void; reject: (e: Error) => void }[] = [];
  const deliver = () => {
    for (let i = 0; i < waiters.length;) {
      const waiter = waiters[i]!;
      const index = events.findIndex((e) => e.event === waiter.name);
      if (index < 0) {
        i++;
        continue;
      }
      waiter.resolve(events.splice(index, 1)[0]!);
      waiters.splice(i, 1);
    }
  };
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    buffered += d.toString();
    let newline;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buffered.slice(0, newline)) as ChildEvent);
      buffered = buffered.slice(newline + 1);
    }
    deliver();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    child.once('close', (code, signal) => {
      for (const waiter of waiters.splice(0)) {
        waiter.reject(
          new Error(`crash child ended (code ${code}, signal ${signal}) before "${waiter.name}":\n${stderr}`),
        );
      }
      resolve({ code, signal, stderr });
    });
  });
  return {
    next: (name) =>
      new Promise((resolve, reject) => {
        waiters.push({ name, resolve, reject });
        deliver();
      }),
    kill: () => child.kill('SIGKILL'),
    exited,
  };
}

/** Runs a steps plan to its end: the child must die by SIGKILL (or exit 0 when the plan has no crash). */
export async function runSteps(
  plan: Extract<ChildPlan, { mode: 'steps' }>,
): Promise<{ ready: number; committed: number }> {
  const child = startChild(plan);
  const [ready, committed, exit] = await Promise.all([child.next('ready'), child.next('committed'), child.exited]);
  const expected = plan.crash ? { code: null, signal: 'SIGKILL' } : { code: 0, signal: null };
  if (exit.code !== expected.code || exit.signal !== expected.signal) {
    throw new Error(
      `crash child ended with code ${exit.code}, signal ${exit.signal}; expected ${JSON.stringify(expected)}:\n${exit.stderr}`,
    );
  }
  return { ready: ready.byteLength, committed: committed.byteLength };
}

/** Runs the start-up sweep in a child that dies right after recovery's first cut of a file. */
export async function recoverThenDie(dataDir: string): Promise<void> {
  const exit = await startChild({ mode: 'recover-then-die', dataDir }).exited;
  if (exit.signal !== 'SIGKILL') throw new Error(`the recovering child ended with code ${exit.code}:\n${exit.stderr}`);
}

/** What a crash left behind, read without running recovery. */
export interface RawState {
  row: CatalogRow;
  pending: PendingAppend[];
  /** The artifact file's size, or null when it is gone. */
  fileSize: number | null;
  file: string;
}

export function rawState(opened: CrashStore, key: OutputKey): RawState {
  const row = opened.store.catalog.get(key);
  if (!row) throw new Error(`no catalog row for ${key.runId}`);
  const file = path.join(opened.store.dir, row.fileName);
  let fileSize: number | null = null;
  try {
    fileSize = fs.statSync(file).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return { row, pending: opened.store.catalog.pending(key), fileSize, file };
}

export function pendingCount(opened: CrashStore): number {
  return (opened.db.prepare('SELECT COUNT(*) AS n FROM command_output_pending_appends').get() as { n: number }).n;
}

/**
 * Checks that the artifact file holds exactly the stream's first `byteLength` bytes and nothing
 * after them; returns a description of the first difference, or null.
 */
export function describeArtifactMismatch(file: string, byteLength: number): string | null {
  const size = fs.statSync(file).size;
  if (size !== byteLength) return `the file has ${size} bytes, the catalog says ${byteLength}`;
  const fd = fs.openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(4 * 1024 * 1024);
    for (let offset = 0; offset < byteLength;) {
      const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, byteLength - offset), offset);
      if (n === 0) return `the file ended at ${offset}`;
      const at = firstMismatch(chunk.subarray(0, n), offset);
      if (at >= 0) return `byte ${at} differs from the stream`;
      offset += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return null;
}
