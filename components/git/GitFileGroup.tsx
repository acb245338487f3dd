'use client';
import { ChevronDown, ChevronRight } from 'lucide-react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { GitFileStatus, GitStatusLetter } from '../../lib/protocol/git';
import { GitFileDiff } from './GitFileDiff';

const LETTER_LABEL: Record<GitStatusLetter, string> = {
  '.': '',
  M: 'modified',
  T: 'type changed',
  A: 'added',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  U: 'conflict',
  '?': 'new',
};

interface GitFileGroupProps {
  client: RpcClient | null;
  projectDirectory: string;
  title: string;
  files: GitFileStatus[];
  /** Which side's letter and diff this group shows: staged (index) or not (work tree). */
  staged: boolean;
  /** The button of each file (and "… all"): Stage, Unstage or Mark resolved. */
  actionLabel: string;
  onAction: (paths: string[]) => void;
  disabled: boolean;
  /** `staged:path` of the file whose diff is open. */
  openDiff: string | null;
  onToggleDiff: (key: string) => void;
}

/** One list of the Git view (GIT-9): a file per row, tapped for its diff, with its 44 px action button. */
export function GitFileGroup({
  client,
  projectDirectory,
  title,
  files,
  staged,
  actionLabel,
  onAction,
  disabled,
  openDiff,
  onToggleDiff,
}: GitFileGroupProps) {
  if (files.length === 0) return null;
  return (
    <section className="git-group" aria-label={title}>
      <div className="row git-group-head">
        <h3 className="grow">
          {title} <span className="muted">{files.length}</span>
        </h3>
        {files.length > 1 && (
          <button type="button" disabled={disabled} onClick={() => onAction(files.map((f) => f.path))}>
            {actionLabel} all
          </button>
        )}
      </div>
      <ul className="git-files">
        {files.map((file) => {
          const key = `${staged}:${file.path}`;
          const open = openDiff === key;
          const letter = staged ? file.index : file.worktree;
          return (
            <li key={key} data-git-file={file.path}>
              <div className="git-file-row">
                <button type="button" className="git-file-name" aria-expanded={open} onClick={() => onToggleDiff(key)}>
                  {open ? <ChevronDown size={16} aria-hidden="true" /> : <ChevronRight size={16} aria-hidden="true" />}
                  <span className="mono grow git-file-path">
                    {file.origPath ? `${file.origPath} → ${file.path}` : file.path}
                  </span>
                  <span className={`pill git-letter git-letter-${letter === '?' ? 'new' : letter}`}>
                    {LETTER_LABEL[letter]}
                  </span>
                </button>
                <button
                  type="button"
                  className="git-file-action"
                  disabled={disabled}
                  onClick={() => onAction([file.path])}
                  aria-label={`${actionLabel} ${file.path}`}
                >
                  {actionLabel}
                </button>
              </div>
              {open && (
                <div className="file-diff git-diff">
                  <GitFileDiff client={client} projectDirectory={projectDirectory} path={file.path} staged={staged} />
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
