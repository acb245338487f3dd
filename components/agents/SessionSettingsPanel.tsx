'use client';
import { useEffect, useState } from 'react';
import { withGuardRailConfirmation } from '../../lib/client/devices/guardRailConfirmation';
import type { RpcClient } from '../../lib/client/rpcClient';
import { DEFAULT_CLAUDE_SETTINGS, DEFAULT_CODEX_SETTINGS, type SessionAgentSettings } from '../../lib/protocol/agents';
import type { Session } from '../../lib/protocol/rows';
import { ClaudeSessionOptions } from './ClaudeSessionOptions';
import { CodexSessionOptions } from './CodexSessionOptions';

/**
 * A session's agent settings, changed between turns (ACC-5): each change is stored at once
 * (`sessions.configure`) and the next turn runs with it.
 */
export function SessionSettingsPanel({ client, session }: { client: RpcClient; session: Session }) {
  const [settings, setSettings] = useState<SessionAgentSettings | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    client.call('sessions.settings', { sessionId: session.id }).then(
      (r) => live && setSettings(r.settings),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [client, session.id]);

  async function save(next: SessionAgentSettings) {
    setError(null);
    setSettings(next);
    try {
      const saved = await withGuardRailConfirmation((confirmed) =>
        client.call('sessions.configure', {
          sessionId: session.id,
          settings: next,
          ...(confirmed ? { confirmLiftedGuardRails: true as const } : {}),
        }),
      );
      // Declined: the stored settings stay, and so does what the panel shows.
      setSettings(
        saved ? saved.settings : (await client.call('sessions.settings', { sessionId: session.id })).settings,
      );
    } catch (e) {
      setError((e as Error).message);
    }
  }

  if (!settings) return error ? <p className="error">{error}</p> : null;
  return (
    <div className="card" aria-label="Session settings">
      {session.agent === 'codex' && (
        <CodexSessionOptions
          client={client}
          value={settings.codex ?? DEFAULT_CODEX_SETTINGS}
          onChange={(codex) => void save({ codex })}
        />
      )}
      {session.agent === 'claude' && (
        <ClaudeSessionOptions
          client={client}
          value={settings.claude ?? DEFAULT_CLAUDE_SETTINGS}
          onChange={(claude) => void save({ claude })}
        />
      )}
      {(session.agent === 'codex' || session.agent === 'claude') && (
        <label className="setting-check" data-setting="messages-need-approval">
          {/* MSG-4: another session's agent may send this session a message; the person may want to see it first. */}
          <input
            type="checkbox"
            checked={settings.messages?.needApproval === true}
            onChange={(event) => void save({ messages: { needApproval: event.currentTarget.checked } })}
          />
          <span>
            Messages from other sessions wait for my approval
            <span className="muted setting-hint">
              Another session’s agent can send this session a message; you then Deliver or Decline it.
            </span>
          </span>
        </label>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
