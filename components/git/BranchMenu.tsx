'use client';
import { Check, GitBranch } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { GitBranch as Branch } from '../../lib/protocol/git';
import type { GitRepo } from './useGitRepo';

interface BranchMenuProps {
  client: RpcClient | null;
  projectDirectory: string;
  repo: GitRepo;
  onClose: () => void;
}

/** The branch menu (GIT-6, GIT-9): switch to a listed branch or make a new one at HEAD. */
export function BranchMenu({ client, projectDirectory, repo, onClose }: BranchMenuProps) {
  const [branches, setBranches] = useState<Branch[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [name, setName] = useState('');
  useEffect(() => {
    if (!client) return;
    client.call('git.branches', { projectDirectory }).then(
      (answer) => setBranches(answer.branches),
      (error: unknown) => setProblem((error as Error).message),
    );
  }, [client, projectDirectory]);

  const run = async (label: string, method: 'git.switchBranch' | 'git.createBranch', branch: string) => {
    const done = await repo.act(label, async (c) => (await c.call(method, { projectDirectory, name: branch })).output);
    if (done) onClose();
  };

  return (
    <div className="card git-branch-menu" role="region" aria-label="Branches">
      {problem && (
        <pre className="git-words" role="alert">
          {problem}
        </pre>
      )}
      {!branches && !problem && <p className="muted">Reading branches…</p>}
      {branches && (
        <ul className="git-branches">
          {branches.map((branch) => (
            <li key={`${branch.remote}:${branch.name}`}>
              <button
                type="button"
                disabled={branch.current || repo.busy !== null}
                aria-current={branch.current ? 'true' : undefined}
                onClick={() => void run(`Switching to ${branch.name}…`, 'git.switchBranch', branch.name)}
              >
                {branch.current ? <Check size={16} aria-label="current" /> : <GitBranch size={16} aria-hidden="true" />}
                <span className="mono grow git-branch-name">{branch.name}</span>
                {branch.remote && <span className="pill">remote</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        className="row git-new-branch"
        onSubmit={(event) => {
          event.preventDefault();
          if (name.trim()) void run(`Creating ${name.trim()}…`, 'git.createBranch', name.trim());
        }}
      >
        <input
          className="grow mono"
          aria-label="New branch name"
          placeholder="new-branch-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          autoCapitalize="off"
          autoCorrect="off"
          spellCheck={false}
        />
        <button type="submit" disabled={!name.trim() || repo.busy !== null}>
          Create
        </button>
      </form>
    </div>
  );
}
