'use client';
import { useState } from 'react';
import type { GitRepo } from './useGitRepo';

/** The commit box (GIT-5, GIT-9): a message and Commit, for what is staged. */
export function CommitBox({
  projectDirectory,
  repo,
  stagedCount,
}: {
  projectDirectory: string;
  repo: GitRepo;
  stagedCount: number;
}) {
  const [message, setMessage] = useState('');
  const commit = async () => {
    const done = await repo.act(
      'Committing…',
      async (client) => (await client.call('git.commit', { projectDirectory, message })).output,
    );
    if (done) setMessage('');
  };
  return (
    <form
      className="card git-commit"
      onSubmit={(event) => {
        event.preventDefault();
        void commit();
      }}
    >
      <label htmlFor="git-commit-message">Commit message</label>
      <textarea
        id="git-commit-message"
        rows={3}
        value={message}
        onChange={(e) => setMessage(e.target.value)}
        placeholder={stagedCount === 0 ? 'Stage a file first' : 'What changed, and why'}
      />
      <button type="submit" className="primary" disabled={!message.trim() || stagedCount === 0 || repo.busy !== null}>
        {stagedCount === 0 ? 'Commit' : stagedCount === 1 ? 'Commit 1 file' : `Commit ${stagedCount} files`}
      </button>
    </form>
  );
}
