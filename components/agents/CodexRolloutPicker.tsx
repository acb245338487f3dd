'use client';
import { FileText } from 'lucide-react';
import { useCallback, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import { shortTime } from '../../lib/client/shortTime';
import type { CodexRollout } from '../../lib/protocol/accounts';
import { formatBytes } from '../formatting';

const PAGE = 30;

/** The last folder of a path: enough to recognise a project on a phone. */
const folderName = (cwd: string) => cwd.split(/[\\/]/).filter(Boolean).at(-1) ?? cwd;

/**
 * SRC-1: "Open a Codex conversation file…": the conversation files of this computer's Codex
 * homes, newest first, a page at a time; picking one hands its path on (SRC-2). A file of the
 * person's own Codex home is marked: it is shown, not continued (SRC-4).
 */
export function CodexRolloutPicker({
  client,
  label = 'Open a Codex conversation file…',
  onPick,
}: {
  client: RpcClient;
  label?: string;
  onPick: (rollout: CodexRollout) => void;
}) {
  const [open, setOpen] = useState(false);
  const [rollouts, setRollouts] = useState<CodexRollout[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const load = useCallback(
    async (cursor: string | null) => {
      setLoading(true);
      setError(null);
      try {
        const page = await client.call('codex.rollouts.list', { limit: PAGE, ...(cursor ? { cursor } : {}) });
        setRollouts((shown) => (cursor && shown ? [...shown, ...page.rollouts] : page.rollouts));
        setNext(page.next);
      } catch (e) {
        setError((e as Error).message);
      } finally {
        setLoading(false);
      }
    },
    [client],
  );

  const toggle = () => {
    if (!open && rollouts === null) void load(null);
    setOpen(!open);
  };
  const now = Date.now();
  return (
    <div className="rollout-picker">
      <button aria-expanded={open} onClick={toggle}>
        <FileText size={16} aria-hidden="true" focusable="false" /> {label}
      </button>
      {open && (
        <div role="region" aria-label="Codex conversation files">
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          {rollouts?.length === 0 && <p className="muted">No Codex conversation files on this computer yet.</p>}
          <ul className="rollout-list">
            {rollouts?.map((rollout) => (
              <li key={rollout.path}>
                <button
                  className="list-button"
                  title={rollout.path}
                  onClick={() => onPick(rollout)}
                  data-rollout-path={rollout.path}
                >
                  <span className="rollout-prompt">{rollout.firstPrompt || 'No message yet'}</span>
                  <span className="muted rollout-meta">
                    <span className="pill">{rollout.profileId === null ? 'Your Codex' : 'HB Code'}</span>
                    {rollout.cwd && <span className="ellipsis">{folderName(rollout.cwd)}</span>}
                    <span>{shortTime(rollout.startedAt ?? rollout.updatedAt, now)}</span>
                    <span>{formatBytes(rollout.size)}</span>
                  </span>
                </button>
              </li>
            ))}
          </ul>
          {loading && <p className="muted">Reading the Codex homes…</p>}
          {next && !loading && <button onClick={() => void load(next)}>Show older files</button>}
        </div>
      )}
    </div>
  );
}
