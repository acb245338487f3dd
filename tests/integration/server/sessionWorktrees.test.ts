import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { readWholeOutput, runShell } from '../../fixtures/sessionHelpers';
import { expectRpcError } from '../../fixtures/rpcErrors';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }).trim();

describe('SES-10 / SES-11 a git worktree per session', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let repo: string;
  let plainFolder: string;
  let repoId: string;
  let plainId: string;

  beforeAll(async () => {
    dirs = makeRuntimeDirs(2);
    [repo, plainFolder] = dirs.projectDirs as [string, string];
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'config', 'user.email', 'tests@example.invalid');
    git(repo, 'config', 'user.name', 'Tests');
    fs.writeFileSync(path.join(repo, 'README.md'), 'hello\n');
    git(repo, 'add', 'README.md');
    git(repo, 'commit', '--quiet', '-m', 'first');
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    client = await runtime.connect();
    const { projects } = await client.call('projects.list');
    repoId = projects.find((p) => p.directory === repo)!.id;
    plainId = projects.find((p) => p.directory === plainFolder)!.id;
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    if (repo) fs.rmSync(`${repo}.worktrees`, { recursive: true, force: true });
    dirs?.remove();
  });

  /** What a shell command printed in the session. */
  async function shellOutput(sessionId: string, command: string): Promise<string> {
    const row = await runShell(client, sessionId, command);
    expect(row.exitCode, command).toBe(0);
    return (await readWholeOutput(client, sessionId, row)).toString('utf8').trim();
  }

  const branches = () => git(repo, 'branch', '--format=%(refname:short)').split('\n');

  it('SES-10 a session with a worktree gets a new branch from HEAD beside the project, the list shows it, and its commands run there', async () => {
    const { session } = await client.call('sessions.create', {
      projectId: repoId,
      agent: 'shell',
      worktree: { branch: 'feature/login' },
    });
    expect(session.worktree).toEqual({
      branch: 'feature/login',
      path: path.join(`${repo}.worktrees`, 'feature-login'),
    });
    expect(fs.existsSync(path.join(session.worktree!.path, 'README.md'))).toBe(true);
    expect(branches()).toContain('feature/login');
    expect(git(repo, 'rev-parse', 'feature/login')).toBe(git(repo, 'rev-parse', 'HEAD'));

    const { sessions } = await client.call('sessions.list');
    expect(sessions.find((s) => s.id === session.id)?.worktree?.branch).toBe('feature/login');
    expect(await shellOutput(session.id, 'pwd')).toBe(session.worktree!.path);
    expect(await shellOutput(session.id, 'git branch --show-current')).toBe('feature/login');

    // A session without a worktree still runs in the project folder.
    const { session: plain } = await client.call('sessions.create', { projectId: repoId, agent: 'shell' });
    expect(plain.worktree).toBeUndefined();
    expect(await shellOutput(plain.id, 'pwd')).toBe(repo);
  });

  it('SES-10 a session without a branch name gets a new one, each its own', async () => {
    const { session: first } = await client.call('sessions.create', {
      projectId: repoId,
      agent: 'shell',
      worktree: {},
    });
    const { session: second } = await client.call('sessions.create', {
      projectId: repoId,
      agent: 'shell',
      worktree: {},
    });
    expect(first.worktree?.branch).toMatch(/^session-[0-9a-f]{8}$/);
    expect(second.worktree?.branch).not.toBe(first.worktree?.branch);
    expect(await shellOutput(second.id, 'git branch --show-current')).toBe(second.worktree!.branch);
  });

  it('SES-10 a folder that is not a git repository, a branch that exists and a name git refuses each get a clear error, and nothing is made', async () => {
    const before = branches();
    const { sessions: sessionsBefore } = await client.call('sessions.list');
    const notRepo = await expectRpcError(
      client.call('sessions.create', { projectId: plainId, agent: 'shell', worktree: {} }),
      'invalid_params',
    );
    expect(notRepo.message).toMatch(/not a git repository/);
    expect(fs.existsSync(`${plainFolder}.worktrees`)).toBe(false);
    const taken = await expectRpcError(
      client.call('sessions.create', { projectId: repoId, agent: 'shell', worktree: { branch: 'main' } }),
      'conflict',
    );
    expect(taken.message).toMatch(/"main" already exists/);
    const bad = await expectRpcError(
      client.call('sessions.create', { projectId: repoId, agent: 'shell', worktree: { branch: 'two..dots' } }),
      'invalid_params',
    );
    expect(bad.message).toMatch(/not a valid branch name/);
    await expectRpcError(
      client.call('sessions.create', { projectId: repoId, agent: 'shell', worktree: { branch: '--force' } }),
      'invalid_params',
    );
    expect(branches()).toEqual(before);
    expect((await client.call('sessions.list')).sessions).toHaveLength(sessionsBefore.length);
  });

  it('SES-11 deleting a session whose branch has a commit the project lacks refuses without force, keeping session, worktree and branch; with force removes them', async () => {
    const { session } = await client.call('sessions.create', {
      projectId: repoId,
      agent: 'shell',
      worktree: { branch: 'unmerged' },
    });
    await shellOutput(session.id, 'echo change > work.txt && git add work.txt && git commit --quiet -m work');

    const refused = await expectRpcError(
      client.call('sessions.delete', { sessionId: session.id, removeWorktree: true }),
      'conflict',
    );
    expect(refused.message).toMatch(/1 commit not in the project's HEAD/);
    expect(refused.data).toMatchObject({
      reason: 'unmerged_worktree',
      unmergedCommits: 1,
      uncommittedChanges: 0,
      branch: 'unmerged',
    });
    expect((await client.call('sessions.list')).sessions.some((s) => s.id === session.id)).toBe(true);
    expect(fs.existsSync(path.join(session.worktree!.path, 'work.txt'))).toBe(true);
    expect(branches()).toContain('unmerged');

    await client.call('sessions.delete', { sessionId: session.id, removeWorktree: true, force: true });
    expect((await client.call('sessions.list')).sessions.some((s) => s.id === session.id)).toBe(false);
    expect(fs.existsSync(session.worktree!.path)).toBe(false);
    expect(branches()).not.toContain('unmerged');
  });

  it('SES-11 uncommitted changes in the worktree refuse its removal too', async () => {
    const { session } = await client.call('sessions.create', {
      projectId: repoId,
      agent: 'shell',
      worktree: { branch: 'dirty' },
    });
    await shellOutput(session.id, 'echo draft > draft.txt && echo more >> README.md');
    const refused = await expectRpcError(
      client.call('sessions.delete', { sessionId: session.id, removeWorktree: true, force: false }),
      'conflict',
    );
    expect(refused.data).toMatchObject({ unmergedCommits: 0, uncommittedChanges: 2 });
    expect(refused.message).toMatch(/2 uncommitted changes/);
    expect(fs.readFileSync(path.join(session.worktree!.path, 'draft.txt'), 'utf8')).toBe('draft\n');
    await client.call('sessions.delete', { sessionId: session.id, removeWorktree: true, force: true });
    expect(fs.existsSync(session.worktree!.path)).toBe(false);
  });

  it('SES-11 a worktree with nothing unmerged is removed with its branch; one merged into HEAD counts as nothing unmerged; without removeWorktree it stays', async () => {
    const { session: clean } = await client.call('sessions.create', {
      projectId: repoId,
      agent: 'shell',
      worktree: { branch: 'clean' },
    });
    await client.call('sessions.delete', { sessionId: clean.id, removeWorktree: true });
    expect(fs.existsSync(clean.worktree!.path)).toBe(false);
    expect(branches()).not.toContain('clean');

    const { session: merged } = await client.call('sessions.create', {
      projectId: repoId,
      agent: 'shell',
      worktree: { branch: 'merged' },
    });
    await shellOutput(merged.id, 'echo done > merged.txt && git add merged.txt && git commit --quiet -m merged');
    git(repo, 'merge', '--quiet', '--ff-only', 'merged');
    await client.call('sessions.delete', { sessionId: merged.id, removeWorktree: true });
    expect(branches()).not.toContain('merged');
    expect(fs.existsSync(path.join(repo, 'merged.txt'))).toBe(true);

    const { session: kept } = await client.call('sessions.create', {
      projectId: repoId,
      agent: 'shell',
      worktree: { branch: 'kept' },
    });
    await shellOutput(kept.id, 'echo mine > mine.txt');
    await client.call('sessions.delete', { sessionId: kept.id });
    expect(fs.readFileSync(path.join(kept.worktree!.path, 'mine.txt'), 'utf8')).toBe('mine\n');
    expect(branches()).toContain('kept');
  });
});
