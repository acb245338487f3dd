import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, runShell } from '../../fixtures/sessionHelpers';

/** The runtime under the most common umask, so a file mode it does not set itself would show as 644. */
const withUserUmask = (command: string[]) => ['/bin/sh', '-c', 'umask 022 && exec "$@"', 'sh', ...command];

interface Entry {
  relative: string;
  kind: 'dir' | 'file';
  mode: number;
}

/** The data folder itself and everything under it, with permission bits (symlinks are not followed). */
function entriesOf(dataDir: string): Entry[] {
  const entries: Entry[] = [{ relative: '.', kind: 'dir', mode: fs.statSync(dataDir).mode & 0o777 }];
  for (const entry of fs.readdirSync(dataDir, { withFileTypes: true, recursive: true })) {
    if (entry.isSymbolicLink()) continue;
    const full = path.join(entry.parentPath, entry.name);
    entries.push({
      relative: path.relative(dataDir, full),
      kind: entry.isDirectory() ? 'dir' : 'file',
      mode: fs.lstatSync(full).mode & 0o777,
    });
  }
  return entries;
}

/** Entries whose mode lets anyone but the owner in: the list a failing test prints. */
function notOwnerOnly(dataDir: string): string[] {
  return entriesOf(dataDir)
    .filter((e) => e.mode !== (e.kind === 'dir' ? 0o700 : 0o600))
    .map((e) => `${e.relative} ${e.mode.toString(8)}`);
}

const octal = (mode: number) => mode.toString(8);

describe('SEC-8 the data folder is owner-only', () => {
  let root: string;
  let projectDir: string;
  let runtime: RuntimeProcess | null = null;
  let client: RpcClient | null = null;

  beforeAll(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-modes-')));
    projectDir = path.join(root, 'project');
    fs.mkdirSync(projectDir, { mode: 0o755 });
    fs.chmodSync(projectDir, 0o755);
  });
  afterEach(async () => {
    client?.close();
    client = null;
    await runtime?.stop();
    runtime = null;
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  async function start(dataDir: string): Promise<RpcClient> {
    runtime = await startRuntimeProcess({ dataDir, projectDirs: [projectDir], wrap: withUserUmask });
    client = await runtime.connect();
    return client;
  }

  async function stop(): Promise<void> {
    client?.close();
    client = null;
    expect(await runtime!.stop()).toBe(0);
    runtime = null;
  }

  it('SEC-8 a fresh data folder, its database (with -wal and -shm) and command output are created 0700/0600, while a command keeps the user umask', async () => {
    // Not created yet: the runtime makes it, and the folders above it, at start-up.
    const dataDir = path.join(root, 'fresh', 'data');
    const rpc = await start(dataDir);
    const sessionId = await createShellSession(rpc);
    const row = await runShell(
      rpc,
      sessionId,
      'echo secret-output && echo made > made-by-command.txt && mkdir made-dir',
    );
    expect(row.status).toBe('exited');

    const names = fs.readdirSync(dataDir);
    expect(names).toEqual(
      expect.arrayContaining(['hbcode.db', 'hbcode.db-wal', 'hbcode.db-shm', 'runtime.lock', 'command-outputs']),
    );
    expect(fs.readdirSync(path.join(dataDir, 'command-outputs')).length).toBeGreaterThan(0);
    expect(notOwnerOnly(dataDir)).toEqual([]);
    // What the runtime runs for the user is not made private: the project keeps its usual modes.
    expect(octal(fs.statSync(path.join(projectDir, 'made-by-command.txt')).mode & 0o777)).toBe('644');
    expect(octal(fs.statSync(path.join(projectDir, 'made-dir')).mode & 0o777)).toBe('755');
  });

  it('SEC-8 an existing data folder left readable by everyone (755/644) is made owner-only at start-up', async () => {
    const dataDir = path.join(root, 'existing');
    const first = await start(dataDir);
    await runShell(first, await createShellSession(first), 'echo earlier-output');
    await stop();
    fs.writeFileSync(path.join(projectDir, 'linked.txt'), 'a project file');
    fs.chmodSync(path.join(projectDir, 'linked.txt'), 0o644);
    fs.mkdirSync(path.join(dataDir, 'older', 'nested'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'older', 'nested', 'notes.txt'), 'left by an older version');
    fs.symlinkSync(path.join(projectDir, 'linked.txt'), path.join(dataDir, 'older', 'link-to-project-file'));
    for (const entry of entriesOf(dataDir))
      fs.chmodSync(path.join(dataDir, entry.relative), entry.kind === 'dir' ? 0o755 : 0o644);
    expect(notOwnerOnly(dataDir)).toEqual(
      expect.arrayContaining([
        '. 755',
        'hbcode.db 644',
        'command-outputs 755',
        'older/nested 755',
        'older/nested/notes.txt 644',
      ]),
    );

    const rpc = await start(dataDir);
    expect(notOwnerOnly(dataDir)).toEqual([]);
    // A symlink is not followed: the project file it points at keeps its mode.
    expect(octal(fs.statSync(path.join(projectDir, 'linked.txt')).mode & 0o777)).toBe('644');
    // The store still works after the fix.
    const sessionId = await createShellSession(rpc);
    expect((await runShell(rpc, sessionId, 'echo again')).status).toBe('exited');
    expect(notOwnerOnly(dataDir)).toEqual([]);
  });
});
