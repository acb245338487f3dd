'use client';
import { useEffect, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import { DiffLines } from '../timeline/diff/DiffLines';

type DiffState =
  { kind: 'loading' } | { kind: 'loaded'; diff: string; truncated: boolean } | { kind: 'failed'; message: string };

/** One file's diff from `git.diff` (GIT-3), drawn by the timeline's diff view (GIT-9). */
export function GitFileDiff({
  client,
  projectDirectory,
  path,
  staged,
}: {
  client: RpcClient | null;
  projectDirectory: string;
  path: string;
  staged: boolean;
}) {
  const [state, setState] = useState<DiffState>({ kind: 'loading' });
  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    if (!client) {
      setState({ kind: 'failed', message: 'Connect to the computer to see this diff.' });
      return;
    }
    client.call('git.diff', { projectDirectory, path, staged }).then(
      (answer) => live && setState({ kind: 'loaded', ...answer }),
      (error: unknown) => live && setState({ kind: 'failed', message: (error as Error).message }),
    );
    return () => {
      live = false;
    };
  }, [client, projectDirectory, path, staged]);

  if (state.kind === 'loading') return <p className="muted file-diff-note">Reading the diff…</p>;
  if (state.kind === 'failed')
    return (
      <pre className="git-words file-diff-note" role="alert">
        {state.message}
      </pre>
    );
  if (state.diff === '')
    return <p className="muted file-diff-note">No text changes (a mode change, or an empty file).</p>;
  if (/^Binary files .* differ$/m.test(state.diff) && !state.diff.includes('\n@@'))
    return <p className="muted file-diff-note">Binary file: no text diff.</p>;
  return (
    <>
      <DiffLines text={state.diff} complete={!state.truncated} path={path} />
      {state.truncated && (
        <p className="muted file-diff-note">This diff is longer than 2 MiB; the rest is not shown here.</p>
      )}
    </>
  );
}
