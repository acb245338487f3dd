'use client';
import { Undo2 } from 'lucide-react';
import type { GitFileStatus, GitStatus } from '../../lib/protocol/git';

/**
 * GIT-10: a merge or rebase that a conflicted pull left stopped, in words (which files conflict),
 * with the one way out that needs no editor: give it up, on a tap (`git.abortMerge`).
 */
export function StoppedMerge({
  status,
  conflicts,
  disabled,
  onAbort,
}: {
  status: GitStatus;
  conflicts: GitFileStatus[];
  disabled: boolean;
  onAbort: () => void;
}) {
  if (!status.merging && !status.rebasing) return null;
  const what = status.rebasing ? 'rebase' : 'merge';
  const files = conflicts.map((f) => f.path);
  return (
    <section className="git-merging" aria-label={`Stopped ${what}`}>
      <p>
        {status.rebasing ? 'A rebase' : 'A merge'} is stopped on conflicts
        {files.length > 0 && (
          <>
            {' '}
            in {files.length === 1 ? '1 file' : `${files.length} files`}:{' '}
            <span className="mono">{files.join(', ')}</span>
          </>
        )}
        . Resolve them on the computer, then mark each file resolved and commit; or abort the {what} to put the branch
        and its files back as they were before the pull.
      </p>
      <button type="button" className="danger" disabled={disabled} onClick={onAbort}>
        <Undo2 size={16} aria-hidden="true" /> Abort {what}
      </button>
    </section>
  );
}
