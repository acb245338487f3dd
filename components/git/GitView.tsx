'use client';
import './git.css';
import { ArrowDown, ArrowUp, FolderOpen, GitBranch, RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { routeHash } from '../../lib/client/appRoute';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { GitFileStatus, GitStatus } from '../../lib/protocol/git';
import { BranchMenu } from './BranchMenu';
import { CommitBox } from './CommitBox';
import { GitFileGroup } from './GitFileGroup';
import { StoppedMerge } from './StoppedMerge';
import { useGitRepo, type GitRepo } from './useGitRepo';

const groupsOf = (files: GitFileStatus[]) => ({
  conflicts: files.filter((f) => f.kind === 'conflict'),
  staged: files.filter((f) => f.kind === 'tracked' && f.index !== '.'),
  changed: files.filter((f) => f.kind === 'tracked' && f.worktree !== '.'),
  untracked: files.filter((f) => f.kind === 'untracked'),
});

/**
 * A project's Git view at `#/git?dir=` (GIT-9): branch, ahead and behind, the changed files with
 * their diffs, stage and unstage, commit, the branch menu, pull and push, and aborting a merge or
 * rebase a pull left stopped (GIT-10). Each runs on a tap only.
 */
export function GitView({ client, projectDirectory }: { client: RpcClient | null; projectDirectory: string }) {
  const repo = useGitRepo(client, projectDirectory);
  const projectName = projectDirectory.split(/[\\/]/).filter(Boolean).pop() ?? projectDirectory;
  return (
    <main className="scroll git-view">
      <nav className="breadcrumbs" aria-label="Project">
        <a href={routeHash({ kind: 'files', projectDirectory: null, path: '' })}>Projects</a>
        <span aria-hidden="true">›</span>
        <a href={routeHash({ kind: 'files', projectDirectory, path: '' })}>
          <FolderOpen size={16} aria-hidden="true" /> {projectName}
        </a>
        <span className="crumb">
          <span aria-hidden="true">›</span>
          <a href={routeHash({ kind: 'git', projectDirectory })} aria-current="page">
            Git
          </a>
        </span>
      </nav>
      {repo.problem && !repo.status ? (
        <pre className="git-words" role="alert">
          {repo.problem}
        </pre>
      ) : !repo.status ? (
        <p className="muted">Reading the repository…</p>
      ) : (
        <Repository client={client} projectDirectory={projectDirectory} repo={repo} status={repo.status} />
      )}
    </main>
  );
}

function Repository({
  client,
  projectDirectory,
  repo,
  status,
}: {
  client: RpcClient | null;
  projectDirectory: string;
  repo: GitRepo;
  status: GitStatus;
}) {
  const [branchMenu, setBranchMenu] = useState(false);
  const [openDiff, setOpenDiff] = useState<string | null>(null);
  const groups = groupsOf(status.files);
  const busy = repo.busy !== null || !client;
  const stage = (paths: string[]) => void repo.act('Staging…', (c) => c.call('git.stage', { projectDirectory, paths }));
  const unstage = (paths: string[]) =>
    void repo.act('Unstaging…', (c) => c.call('git.unstage', { projectDirectory, paths }));
  const remote = (method: 'git.pull' | 'git.push', label: string) =>
    void repo.act(label, async (c) => (await c.call(method, { projectDirectory })).output);
  const group = {
    client,
    projectDirectory,
    disabled: busy,
    openDiff,
    onToggleDiff: (key: string) => setOpenDiff((open) => (open === key ? null : key)),
  };

  return (
    <>
      <section className="card git-head" aria-label="Branch">
        <div className="row git-branch-row">
          <button
            type="button"
            className="git-branch-button"
            aria-expanded={branchMenu}
            onClick={() => setBranchMenu((o) => !o)}
            disabled={!client}
          >
            <GitBranch size={18} aria-hidden="true" />
            <span className="mono ellipsis">{status.branch ?? `detached at ${status.head?.slice(0, 7) ?? '?'}`}</span>
          </button>
          {status.upstream && (
            <span
              className="muted git-track"
              aria-label={`${status.ahead ?? 0} ahead, ${status.behind ?? 0} behind ${status.upstream}`}
            >
              <ArrowUp size={14} aria-hidden="true" />
              {status.ahead ?? 0} <ArrowDown size={14} aria-hidden="true" />
              {status.behind ?? 0} <span className="ellipsis">{status.upstream}</span>
            </span>
          )}
        </div>
        <div className="row git-actions">
          <button type="button" disabled={busy} onClick={() => remote('git.pull', 'Pulling…')}>
            <ArrowDown size={16} aria-hidden="true" /> Pull
          </button>
          <button type="button" disabled={busy} onClick={() => remote('git.push', 'Pushing…')}>
            <ArrowUp size={16} aria-hidden="true" /> Push
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={repo.refresh}
            aria-label="Refresh status"
            title="Refresh status"
          >
            <RefreshCw size={16} aria-hidden="true" />
          </button>
        </div>
      </section>
      {branchMenu && (
        <BranchMenu
          client={client}
          projectDirectory={projectDirectory}
          repo={repo}
          onClose={() => setBranchMenu(false)}
        />
      )}
      {repo.busy && (
        <p className="muted" role="status">
          {repo.busy}
        </p>
      )}
      {repo.notice && (
        <pre className={`git-words git-${repo.notice.kind}`} role={repo.notice.kind === 'failed' ? 'alert' : 'status'}>
          {repo.notice.text}
        </pre>
      )}
      <StoppedMerge
        status={status}
        conflicts={groups.conflicts}
        disabled={busy}
        onAbort={() =>
          void repo.act(status.rebasing ? 'Aborting the rebase…' : 'Aborting the merge…', (c) =>
            c.call('git.abortMerge', { projectDirectory }),
          )
        }
      />
      <GitFileGroup
        {...group}
        title="Conflicts"
        files={groups.conflicts}
        staged={false}
        actionLabel="Mark resolved"
        onAction={stage}
      />
      <GitFileGroup {...group} title="Staged" files={groups.staged} staged actionLabel="Unstage" onAction={unstage} />
      <GitFileGroup
        {...group}
        title="Changes"
        files={groups.changed}
        staged={false}
        actionLabel="Stage"
        onAction={stage}
      />
      <GitFileGroup
        {...group}
        title="Untracked"
        files={groups.untracked}
        staged={false}
        actionLabel="Stage"
        onAction={stage}
      />
      {status.files.length === 0 && <p className="muted">Nothing to commit: the work tree is clean.</p>}
      {status.privateCount > 0 && (
        <p className="muted">
          {status.privateCount === 1 ? '1 changed file is' : `${status.privateCount} changed files are`} kept private
          (credentials) and not shown.
        </p>
      )}
      {status.truncated && <p className="muted">More files changed than this view lists.</p>}
      <CommitBox projectDirectory={projectDirectory} repo={repo} stagedCount={groups.staged.length} />
    </>
  );
}
