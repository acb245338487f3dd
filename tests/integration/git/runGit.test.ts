import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitEnvironment, GitRunFailure, runGit } from '../../../server/runtime/git/runGit';
import { waitUntil } from '../../fixtures/waitUntil';

/** Whether a process with this id still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('GIT-1 one git run: no prompt, bounded output, a time limit that stops the whole process group', () => {
  let folder: string;
  beforeAll(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-rungit-'));
  });
  afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('GIT-1 git gets no password prompt and literal pathspecs, and never variables that point it at another repository', () => {
    const env = gitEnvironment({
      PATH: '/usr/bin',
      GIT_DIR: '/elsewhere/.git',
      GIT_WORK_TREE: '/elsewhere',
      GIT_INDEX_FILE: '/elsewhere/index',
      HBCODE_TOKEN: 'secret',
      GIT_SSH_COMMAND: 'ssh -i key',
    });
    expect(env).toMatchObject({
      PATH: '/usr/bin',
      GIT_TERMINAL_PROMPT: '0',
      GIT_LITERAL_PATHSPECS: '1',
      GIT_SSH_COMMAND: 'ssh -i key',
    });
    for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'HBCODE_TOKEN'])
      expect(env[name]).toBeUndefined();
  });

  it('GIT-1 input goes in on stdin and the answer carries stdout, stderr and the exit code', async () => {
    const hashed = await runGit(['hash-object', '--stdin'], {
      cwd: folder,
      input: 'hello\n',
      timeoutMs: 30_000,
      maxOutputBytes: 1024,
    });
    expect(hashed).toEqual({
      stdout: 'ce013625030ba8dba906f756967f9e9ca394464a\n',
      stderr: '',
      exitCode: 0,
      truncated: false,
    });
    const refused = await runGit(['rev-parse', '--show-prefix'], {
      cwd: folder,
      timeoutMs: 30_000,
      maxOutputBytes: 1024,
    });
    expect(refused.exitCode).toBe(128);
    expect(refused.stderr).toMatch(/not a git repository/);
  });

  it('GIT-1 output past the bound is cut there and the run says so', async () => {
    const run = await runGit(['-c', 'alias.flood=!yes', 'flood'], {
      cwd: folder,
      timeoutMs: 30_000,
      maxOutputBytes: 1000,
    });
    expect(run.truncated).toBe(true);
    expect(run.stdout).toBe('y\n'.repeat(500));
  });

  it('GIT-1 a run past its time limit is stopped with everything it started', async () => {
    const pidFile = path.join(folder, 'child.pid');
    const run = runGit(
      ['-c', `alias.hang=!echo $$ > '${pidFile}.part' && mv '${pidFile}.part' '${pidFile}' && exec sleep 600`, 'hang'],
      { cwd: folder, timeoutMs: 8000, maxOutputBytes: 1024 },
    );
    await waitUntil(() => fs.existsSync(pidFile), 'git starts the command of its alias');
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    const failure = await run.then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(GitRunFailure);
    expect((failure as GitRunFailure).reason).toBe('timeout');
    expect((failure as GitRunFailure).message).toMatch(/did not finish within 8 s and was stopped/);
    await waitUntil(() => !alive(pid), 'the sleep git started is gone too');
  });
});
