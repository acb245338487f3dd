import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDataLock } from '../../../server/runtime/store/dataLock';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { makeTempDir } from '../../fixtures/tempDir';
import { waitUntil } from '../../fixtures/waitUntil';

/** The state letter of /proc/<pid>/stat (`Z` for a zombie), or null once the entry is gone. */
function procState(pid: number): string | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

const lockOwner = (dataDir: string) =>
  Number(fs.readFileSync(path.join(dataDir, 'runtime.lock'), 'utf8').split(' ')[0]);

/** One runtime per data folder (STO-1), and a dead one's lock is taken over. */
describe('The data-folder lock', () => {
  const runtimes: RuntimeProcess[] = [];
  const others: ChildProcess[] = [];
  afterEach(async () => {
    for (const runtime of runtimes.splice(0)) await runtime.stopIfRunning();
    for (const child of others.splice(0)) child.kill('SIGKILL');
  });

  it('STO-1 a second runtime on a folder a live one uses is refused', async () => {
    const runtime = await startRuntimeProcess();
    runtimes.push(runtime);
    expect(() => acquireDataLock(runtime.dataDir)).toThrow(
      `Another runtime (process ${lockOwner(runtime.dataDir)}) is using the data folder`,
    );
  });

  it('STO-1 a runtime killed while its parent does not reap it (a zombie) does not block the restart', async () => {
    // The shell becomes `sleep`, which never waits for the runtime it started: killed, the runtime stays a zombie.
    const first = await startRuntimeProcess({
      wrap: (command) => ['sh', '-c', '"$@" & exec sleep 600', 'sh', ...command],
    });
    runtimes.push(first);
    const pid = lockOwner(first.dataDir);
    expect(pid).not.toBe(first.child.pid);
    process.kill(pid, 'SIGKILL');
    await waitUntil(() => procState(pid) === 'Z', 'the killed runtime is a zombie');
    const second = await startRuntimeProcess({ dataDir: first.dataDir });
    runtimes.push(second);
    expect(lockOwner(second.dataDir)).toBe(second.child.pid);
    // The zombie is still there: the lock did not wait for it to be reaped.
    expect(procState(pid)).toBe('Z');
  });

  it('STO-1 a lock whose pid now names another process (another start time) is taken over', async () => {
    const dataDir = makeTempDir('hbcode-lock-');
    const other = spawn('sleep', ['600'], { stdio: 'ignore' });
    others.push(other);
    await waitUntil(() => procState(other.pid!) !== null, 'sleep runs');
    fs.writeFileSync(path.join(dataDir, 'runtime.lock'), `${other.pid} 1`);
    const release = acquireDataLock(dataDir);
    expect(lockOwner(dataDir)).toBe(process.pid);
    release();
    expect(fs.existsSync(path.join(dataDir, 'runtime.lock'))).toBe(false);
    // The same pid with its real start time is a live owner.
    const startTime = fs.readFileSync(`/proc/${other.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19];
    fs.writeFileSync(path.join(dataDir, 'runtime.lock'), `${other.pid} ${startTime}`);
    expect(() => acquireDataLock(dataDir)).toThrow(`Another runtime (process ${other.pid})`);
  });
});
