'use client';
import { useEffect, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import { shortTime } from '../../lib/client/shortTime';
import type { RecentConversation } from '../../lib/protocol/agents';
import { formatBytes } from '../formatting';

const AGENT_NAMES: Record<RecentConversation['agent'], string> = { claude: 'Claude', codex: 'Codex' };

/**
 * ACC-11: the conversations the agent saved for the project folder, in the app or a terminal,
 * newest first; picking one makes the new session continue it with its history. One that a
 * session already continues cannot be picked again (ACC-8).
 */
export function RecentConversations({
  client,
  agent,
  projectDirectory,
  accountKey,
  value,
  onChange,
}: {
  client: RpcClient;
  agent: RecentConversation['agent'];
  projectDirectory: string;
  /** Codex: the profile whose threads are listed. */
  accountKey: string | null;
  value: string | null;
  /** The picked conversation (its id and title), or null for a new one. */
  onChange(picked: { id: string; title: string } | null): void;
}) {
  const [conversations, setConversations] = useState<RecentConversation[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    setConversations(null);
    setError(null);
    client
      .call('agents.recentConversations', { projectDirectory, agent, ...(accountKey ? { accountKey } : {}) })
      .then((r) => live && setConversations(r.conversations))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [client, agent, projectDirectory, accountKey]);

  const now = Date.now();
  return (
    <div
      className="recent-conversations"
      role="radiogroup"
      aria-label={`Continue a ${AGENT_NAMES[agent]} conversation`}
    >
      <span>Conversation</span>
      {error && <p className="error">{error}</p>}
      <ul>
        <li>
          <button type="button" role="radio" aria-checked={value === null} onClick={() => onChange(null)}>
            <span className="conversation-title">Start a new conversation</span>
          </button>
        </li>
        {conversations?.map((c) => (
          <li key={c.id}>
            <button
              type="button"
              role="radio"
              aria-checked={value === c.id}
              data-conversation-id={c.id}
              disabled={c.openInSessionId !== null}
              onClick={() => onChange({ id: c.id, title: c.title })}
            >
              <span className="conversation-title">{c.title}</span>
              {c.firstPrompt && c.firstPrompt !== c.title && (
                <span className="conversation-prompt muted">{c.firstPrompt}</span>
              )}
              <span className="conversation-meta muted">
                <time dateTime={new Date(c.updatedAt).toISOString()} title={new Date(c.updatedAt).toLocaleString()}>
                  {shortTime(c.updatedAt, now)}
                </time>
                {c.sizeBytes !== null && ` · ${formatBytes(c.sizeBytes)}`}
                {/* A detached HEAD (or no repository) names no branch worth showing. */}
                {c.gitBranch && c.gitBranch !== 'HEAD' && ` · ${c.gitBranch}`}
                {c.ownCodexHome && ' · from your Codex home'}
                {c.openInSessionId && ' · already open in a session'}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {!conversations && !error && <p className="muted">Looking for saved {AGENT_NAMES[agent]} conversations…</p>}
      {conversations?.length === 0 && (
        <p className="muted">{AGENT_NAMES[agent]} has no saved conversation for this folder yet.</p>
      )}
    </div>
  );
}
