import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SessionWorktree } from '../../../lib/protocol/rows';
import { conflict, invalidParams, unavailable } from '../errors';
import { GitCommandError, gitOutput } from './gitOutput';

/** What removing a worktree would lose (SES-11): commits not in the project's HEAD, and changes not committed. */
export interface UnmergedWork {
  unmergedCommits: number;
  uncommittedChanges: number;
}

/**
 * SES-10: worktrees sit beside the project, in `<project>.worktrees/`, one folder per branch (a `/`
 * in the branch name becomes `-`), so the person finds them next to the project and no tool that
 * walks the project meets a second copy of it.
 */
export function worktreeFolder(projectDirectory: string, branch: string): string {
  return path.join(`${projectDirectory}.worktrees`, branch.replaceAll('/', '-'));
}

/** A new branch name when the person gives none: `session-` and eight hex digits. */
const newBranchName = () => `session-${crypto.randomBytes(4).toString('hex')}`;

/** Whether `ref` (a full ref name) exists. */
const branchExists = (projectDirectory: string, ref: string) =>
  gitOutput(projectDirectory, ['show-ref', '--verify', '--quiet', ref]).then(
    () => true,
    () => false,
  );

async function requireCommit(projectDirectory: string): Promise<void> {
  try {
    await gitOutput(projectDirectory, ['rev-parse', '--show-toplevel']);
  } catch (error) {
    if (error instanceof GitCommandError)
      throw invalidParams('This project is not a git repository, so a session cannot have a worktree of its own.', {
        projectDirectory,
      });
    throw unavailable(`git could not be run: ${(error as Error).message}`);
  }
  try {
    await gitOutput(projectDirectory, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  } catch {
    throw invalidParams('This repository has no commit yet; commit once before giving a session a worktree.', {
      projectDirectory,
    });
  }
}

async function requireNewBranch(projectDirectory: string, branch: string): Promise<void> {
  try {
    await gitOutput(projectDirectory, ['check-ref-format', '--branch', branch]);
  } catch {
    throw invalidParams(`"${branch}" is not a valid branch name.`, { branch });
  }
  const exists = await branchExists(projectDirectory, `refs/heads/${branch}`);
  if (exists) throw conflict(`A branch named "${branch}" already exists; choose another name.`, { branch });
}

/**
 * SES-10: a new branch from the project's HEAD, checked out in a new worktree beside the project.
 * Nothing is created when any check fails.
 */
export async function createSessionWorktree(
  projectDirectory: string,
  requestedBranch: string | undefined,
): Promise<SessionWorktree> {
  await requireCommit(projectDirectory);
  const branch = requestedBranch ?? newBranchName();
  await requireNewBranch(projectDirectory, branch);
  const folder = worktreeFolder(projectDirectory, branch);
  if (fs.existsSync(folder))
    throw conflict(`The folder for this branch's worktree already exists: ${folder}`, { branch, path: folder });
  fs.mkdirSync(path.dirname(folder), { recursive: true });
  try {
    await gitOutput(projectDirectory, ['worktree', 'add', '-b', branch, '--', folder, 'HEAD']);
  } catch (error) {
    throw unavailable(`The worktree could not be made: ${(error as Error).message}`, { branch });
  }
  return { branch, path: fs.realpathSync.native(folder) };
}

/** SES-11: the commits on the branch that the project's HEAD lacks, and the worktree's uncommitted changes. */
export async function unmergedWork(projectDirectory: string, worktree: SessionWorktree): Promise<UnmergedWork> {
  const branchRef = `refs/heads/${worktree.branch}`;
  const hasBranch = await branchExists(projectDirectory, branchRef);
  const unmergedCommits = hasBranch
    ? Number((await gitOutput(projectDirectory, ['rev-list', '--count', `HEAD..${branchRef}`, '--'])).trim())
    : 0;
  const uncommittedChanges = fs.existsSync(worktree.path)
    ? (await gitOutput(worktree.path, ['status', '--porcelain', '--untracked-files=all']))
        .split('\n')
        .filter((line) => line.length > 0).length
    : 0;
  return { unmergedCommits, uncommittedChanges };
}

/** Words for what would be lost, e.g. "2 commits not in the project's HEAD and 1 uncommitted change". */
export function describeUnmergedWork(work: UnmergedWork): string {
  const parts: string[] = [];
  if (work.unmergedCommits > 0)
    parts.push(`${work.unmergedCommits} commit${work.unmergedCommits === 1 ? '' : 's'} not in the project's HEAD`);
  if (work.uncommittedChanges > 0)
    parts.push(`${work.uncommittedChanges} uncommitted change${work.uncommittedChanges === 1 ? '' : 's'}`);
  return parts.join(' and ');
}

/** SES-11: refuses (`conflict`, with the counts) when removing the worktree would lose work. */
export async function refuseUnmergedWork(projectDirectory: string, worktree: SessionWorktree): Promise<void> {
  const work = await unmergedWork(projectDirectory, worktree);
  if (work.unmergedCommits === 0 && work.uncommittedChanges === 0) return;
  throw conflict(
    `The worktree of branch "${worktree.branch}" has ${describeUnmergedWork(work)}. Delete it anyway only if that work is not needed (force), or keep the worktree.`,
    {
      reason: 'unmerged_worktree',
      branch: worktree.branch,
      path: worktree.path,
      ...work,
    },
  );
}

/**
 * SES-11: removes the worktree and its branch. The caller checked `unmergedWork` first and has the
 * person's `force` when there was any; git's own `--force` is passed only then.
 */
export async function removeSessionWorktree(
  projectDirectory: string,
  worktree: SessionWorktree,
  force: boolean,
): Promise<void> {
  try {
    if (fs.existsSync(worktree.path))
      await gitOutput(projectDirectory, ['worktree', 'remove', ...(force ? ['--force'] : []), '--', worktree.path]);
    else await gitOutput(projectDirectory, ['worktree', 'prune']);
    const hasBranch = await branchExists(projectDirectory, `refs/heads/${worktree.branch}`);
    if (hasBranch) await gitOutput(projectDirectory, ['branch', force ? '-D' : '-d', '--', worktree.branch]);
  } catch (error) {
    throw unavailable(`The worktree could not be removed: ${(error as Error).message}`, {
      branch: worktree.branch,
      path: worktree.path,
    });
  }
}
