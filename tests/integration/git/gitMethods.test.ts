import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { expectRpcError } from '../../fixtures/rpcErrors';
import { gitIn, isolatedGitEnv, makeRepoWithBare, pushFromAnotherClone, type Git } from '../../fixtures/gitRepos';

describe('GIT git.* methods over a real WebSocket, on repositories the test makes', () => {
  let dirs: RuntimeDirs;
  let home: string;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let project: string;
  let notRepo: string;
  let bare: string;
  let git: Git;
  const write = (name: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(project, name)), { recursive: true });
    fs.writeFileSync(path.join(project, name), text);
  };
  const where = () => ({ projectDirectory: project });

  beforeAll(async () => {
    dirs = makeRuntimeDirs(2);
    [project, notRepo] = dirs.projectDirs as [string, string];
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-git-home-'));
    const env = isolatedGitEnv(home);
    git = gitIn(env);
    ({ bare } = makeRepoWithBare(git, project, {
      'a.txt': 'alpha\n',
      'b.txt': 'beta\n',
      'shared.txt': 'one\ntwo\nthree\n',
    }));
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs, env });
    client = await runtime.connect();
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    dirs?.remove();
    for (const dir of [home, bare]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('GIT-2 a folder that is not a repository is refused with not_a_repository; a folder that is no project with not_found', async () => {
    const error = await expectRpcError(client.call('git.status', { projectDirectory: notRepo }), 'not_a_repository');
    expect(error.message).toMatch(/not a Git repository/);
    await expectRpcError(client.call('git.branches', { projectDirectory: notRepo }), 'not_a_repository');
    await expectRpcError(client.call('git.status', { projectDirectory: path.join(project, 'elsewhere') }), 'not_found');
  });

  it('GIT-2 GIT-4 GIT-5 two files changed, one staged and committed: status, log and ahead count follow', async () => {
    write('a.txt', 'alpha, changed\n');
    write('b.txt', 'beta, changed\n');
    write('new/c.txt', 'brand new\n');
    const before = await client.call('git.status', where());
    expect(before).toMatchObject({
      branch: 'main',
      upstream: 'origin/main',
      ahead: 0,
      behind: 0,
      merging: false,
      privateCount: 0,
      truncated: false,
    });
    expect(before.files).toEqual([
      { path: 'a.txt', index: '.', worktree: 'M', kind: 'tracked' },
      { path: 'b.txt', index: '.', worktree: 'M', kind: 'tracked' },
      { path: 'new/c.txt', index: '?', worktree: '?', kind: 'untracked' },
    ]);
    const staged = await client.call('git.stage', { ...where(), paths: ['a.txt'] });
    expect(staged.files.find((f) => f.path === 'a.txt')).toMatchObject({ index: 'M', worktree: '.' });
    const unstaged = await client.call('git.unstage', { ...where(), paths: ['a.txt'] });
    expect(unstaged.files.find((f) => f.path === 'a.txt')).toMatchObject({ index: '.', worktree: 'M' });
    await client.call('git.stage', { ...where(), paths: ['a.txt'] });

    const committed = await client.call('git.commit', {
      ...where(),
      message: '--amend is only words here\n\nSecond paragraph.',
    });
    expect(committed.output).toMatch(/\[main [0-9a-f]+\] --amend is only words here/);
    expect(git(project, 'log', '--format=%s', '-2').split('\n').slice(0, 2)).toEqual([
      '--amend is only words here',
      'First commit',
    ]);
    const after = await client.call('git.status', where());
    expect(after).toMatchObject({ ahead: 1, behind: 0 });
    expect(after.files.map((f) => f.path)).toEqual(['b.txt', 'new/c.txt']);
  });

  it("GIT-5 a commit with nothing staged is refused in git's words; an empty message never reaches git", async () => {
    const error = await expectRpcError(
      client.call('git.commit', { ...where(), message: 'Nothing to commit' }),
      'git_failed',
    );
    expect(error.message).toMatch(/no changes added to commit|nothing to commit/);
    await expectRpcError(client.call('git.commit', { ...where(), message: '   ' }), 'invalid_params');
  });

  it("GIT-3 a file's diff: work tree, staged, and an untracked file as all added", async () => {
    const worktree = await client.call('git.diff', { ...where(), path: 'b.txt', staged: false });
    expect(worktree.truncated).toBe(false);
    expect(worktree.diff).toContain('-beta\n+beta, changed\n');
    expect((await client.call('git.diff', { ...where(), path: 'b.txt', staged: true })).diff).toBe('');
    await client.call('git.stage', { ...where(), paths: ['b.txt'] });
    expect((await client.call('git.diff', { ...where(), path: 'b.txt', staged: true })).diff).toContain(
      '+beta, changed',
    );
    await client.call('git.unstage', { ...where(), paths: ['b.txt'] });
    const untracked = await client.call('git.diff', { ...where(), path: 'new/c.txt', staged: false });
    expect(untracked.diff).toContain('+brand new');
    expect(untracked.diff).toContain('new file mode');
  });

  it('GIT-1 paths are literal: "*" stages nothing else, and a path git does not know is refused in git\'s words', async () => {
    const error = await expectRpcError(client.call('git.stage', { ...where(), paths: ['*'] }), 'git_failed');
    expect(error.message).toMatch(/pathspec '\*' did not match any files/);
    expect((await client.call('git.status', where())).files.every((f) => f.index === '.' || f.index === '?')).toBe(
      true,
    );
  });

  it('GIT-7 secret files stay private: not named in the status, no diff, no staging; paths stay in the project', async () => {
    write('.env', 'TOKEN=hunter2\n');
    write('keys/deploy.pem', '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n');
    fs.symlinkSync('/etc', path.join(project, 'outside'));
    try {
      const status = await client.call('git.status', where());
      expect(status.files.map((f) => f.path)).not.toContain('.env');
      expect(status.privateCount).toBeGreaterThanOrEqual(1);
      const refused = await expectRpcError(
        client.call('git.diff', { ...where(), path: '.env', staged: false }),
        'secret_file',
      );
      expect(refused.data).toMatchObject({ reason: 'credential', secretType: 'env' });
      await expectRpcError(client.call('git.stage', { ...where(), paths: ['b.txt', '.env'] }), 'secret_file');
      await expectRpcError(
        client.call('git.diff', { ...where(), path: 'keys/deploy.pem', staged: false }),
        'secret_file',
      );
      await expectRpcError(client.call('git.diff', { ...where(), path: '.git/config', staged: false }), 'secret_file');
      await expectRpcError(
        client.call('git.diff', { ...where(), path: 'outside/hostname', staged: false }),
        'not_found',
      );
      await expectRpcError(client.call('git.diff', { ...where(), path: '../x', staged: false }), 'invalid_params');
      await expectRpcError(client.call('git.stage', { ...where(), paths: ['/etc/hostname'] }), 'invalid_params');
      expect(git(project, 'diff', '--cached', '--name-only')).toBe('');
    } finally {
      fs.rmSync(path.join(project, '.env'));
      fs.rmSync(path.join(project, 'keys'), { recursive: true });
      fs.rmSync(path.join(project, 'outside'));
    }
  });

  it('GIT-1 bad params are refused before git runs', async () => {
    await expectRpcError(client.call('git.stage', { ...where(), paths: [] }), 'invalid_params');
    await expectRpcError(client.call('git.stage', { ...where(), paths: [''] }), 'invalid_params');
    await expectRpcError(client.call('git.status', { ...where(), extra: true } as never), 'invalid_params');
    await expectRpcError(client.call('git.diff', { ...where(), path: 'a.txt' } as never), 'invalid_params');
    await expectRpcError(client.call('git.createBranch', { ...where(), name: '--orphan' }), 'invalid_params');
    await expectRpcError(client.call('git.switchBranch', { ...where(), name: '-' }), 'invalid_params');
    await expectRpcError(client.call('git.createBranch', { ...where(), name: 'a\nb' }), 'invalid_params');
  });

  it('GIT-6 branches: create one (switched to), list them, switch back; a name git refuses in its words', async () => {
    git(project, 'stash', '-u', '-q');
    const created = await client.call('git.createBranch', { ...where(), name: 'feature/phone' });
    expect(created.output).toMatch(/Switched to a new branch 'feature\/phone'/);
    expect((await client.call('git.status', where())).branch).toBe('feature/phone');
    const { branches } = await client.call('git.branches', where());
    expect(branches).toEqual([
      { name: 'feature/phone', current: true, remote: false, upstream: null },
      { name: 'main', current: false, remote: false, upstream: 'origin/main' },
    ]);
    expect((await client.call('git.switchBranch', { ...where(), name: 'main' })).output).toMatch(
      /Switched to branch 'main'/,
    );
    const bad = await expectRpcError(client.call('git.createBranch', { ...where(), name: 'two..dots' }), 'git_failed');
    expect(bad.message).toMatch(/'two\.\.dots' is not a valid branch name/);
    const missing = await expectRpcError(
      client.call('git.switchBranch', { ...where(), name: 'nowhere' }),
      'git_failed',
    );
    expect(missing.message).toMatch(/invalid reference: nowhere/);
    git(project, 'stash', 'pop', '-q');
  });

  it('GIT-8 push sends the commit to the bare repository on disk; a new branch is pushed and tracks its remote', async () => {
    const pushed = await client.call('git.push', where());
    expect(pushed.output).toMatch(/main -> main/);
    expect(git(project, `--git-dir=${bare}`, 'log', '--format=%s', '-1', 'main').trim()).toBe(
      '--amend is only words here',
    );
    expect((await client.call('git.status', where())).ahead).toBe(0);

    await client.call('git.switchBranch', { ...where(), name: 'feature/phone' });
    expect((await client.call('git.push', where())).output).toMatch(/\[new branch\]\s+HEAD -> feature\/phone/);
    expect((await client.call('git.status', where())).upstream).toBe('origin/feature/phone');
    await client.call('git.switchBranch', { ...where(), name: 'main' });
  });

  it("GIT-8 a non-fast-forward push is refused in git's words", async () => {
    pushFromAnotherClone(git, bare, 'a.txt', 'alpha from elsewhere\n', 'Change from another computer');
    git(project, 'fetch', '-q');
    await client.call('git.stage', { ...where(), paths: ['b.txt'] });
    await client.call('git.commit', { ...where(), message: 'Local change' });
    const error = await expectRpcError(client.call('git.push', where()), 'git_failed');
    expect(error.message).toMatch(/\[rejected\]\s+main -> main \(non-fast-forward\)/);
    expect(error.message).toMatch(/failed to push some refs/);
    expect(error.data).toMatchObject({ command: 'push', exitCode: 1 });
  });

  it("GIT-8 a pull that conflicts is reported in git's words and the status shows the conflict", async () => {
    pushFromAnotherClone(git, bare, 'shared.txt', 'one\nTWO from elsewhere\nthree\n', 'Their edit');
    write('shared.txt', 'one\nTWO from the phone\nthree\n');
    await client.call('git.stage', { ...where(), paths: ['shared.txt'] });
    await client.call('git.commit', { ...where(), message: 'Our edit' });
    const error = await expectRpcError(client.call('git.pull', where()), 'git_failed');
    expect(error.message).toMatch(/CONFLICT \(content\): Merge conflict in shared\.txt/);
    expect(error.message).toMatch(/Automatic merge failed/);
    const status = await client.call('git.status', where());
    expect(status.merging).toBe(true);
    expect(status.files.find((f) => f.path === 'shared.txt')).toMatchObject({
      kind: 'conflict',
      index: 'U',
      worktree: 'U',
    });
    expect(status.rebasing).toBe(false);
    const ours = git(project, 'rev-parse', 'HEAD').trim();

    // GIT-10: Abort merge puts the branch and the work tree back as they were before the pull.
    const aborted = await client.call('git.abortMerge', where());
    expect(aborted).toMatchObject({ merging: false, rebasing: false });
    // An untracked file of an earlier test stays; nothing tracked is changed or conflicted.
    expect(aborted.files.filter((f) => f.kind !== 'untracked')).toEqual([]);
    expect(git(project, 'rev-parse', 'HEAD').trim()).toBe(ours);
    expect(fs.readFileSync(path.join(project, 'shared.txt'), 'utf8')).toBe('one\nTWO from the phone\nthree\n');
    expect(git(project, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    // Nothing stopped any more: nothing to abort, in plain words.
    const nothing = await expectRpcError(client.call('git.abortMerge', where()), 'git_failed');
    expect(nothing.message).toBe('There is no merge or rebase to abort.');
  });

  it('GIT-10 a pull that rebases (pull.rebase) and conflicts shows the rebase, and Abort puts the branch back', async () => {
    const ours = git(project, 'rev-parse', 'HEAD').trim();
    git(project, 'config', 'pull.rebase', 'true');
    try {
      const error = await expectRpcError(client.call('git.pull', where()), 'git_failed');
      expect(error.message).toMatch(/CONFLICT \(content\): Merge conflict in shared\.txt/);
      const status = await client.call('git.status', where());
      expect(status).toMatchObject({ rebasing: true, merging: false });
      expect(status.files.find((f) => f.path === 'shared.txt')).toMatchObject({ kind: 'conflict' });

      const aborted = await client.call('git.abortMerge', where());
      expect(aborted).toMatchObject({ rebasing: false, merging: false, branch: 'main' });
      expect(aborted.files.filter((f) => f.kind !== 'untracked')).toEqual([]);
      expect(git(project, 'rev-parse', 'HEAD').trim()).toBe(ours);
      expect(git(project, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    } finally {
      git(project, 'config', '--unset', 'pull.rebase');
    }
  });

  it('GIT-1 a remote that asks for a password fails at once instead of waiting for a prompt', async () => {
    const server = http.createServer((_req, res) =>
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test"' }).end(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      git(
        project,
        'remote',
        'set-url',
        'origin',
        `http://127.0.0.1:${(server.address() as AddressInfo).port}/repo.git`,
      );
      const error = await expectRpcError(client.call('git.pull', where()), 'git_failed');
      expect(error.message).toMatch(/terminal prompts disabled/);
    } finally {
      git(project, 'remote', 'set-url', 'origin', bare);
      server.close();
    }
  });
});
