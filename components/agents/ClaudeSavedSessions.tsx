import type { SavedClaudeSession } from '../../lib/protocol/claude';

/** Conversations Claude saved for the project (ACC-8); one already open in a session cannot be taken again. */
export function ClaudeSavedSessions({ sessions, error, onContinue }: { sessions: SavedClaudeSession[] | null; error: string | null; onContinue(claudeSessionId: string): void }) {
  if (error) return <p className="error">{error}</p>;
  if (!sessions) return <p className="muted">Looking for saved Claude conversations…</p>;
  if (sessions.length === 0) return <p className="muted">Claude has no saved conversation for this project.</p>;
  return (
    <div style={{ display: 'grid', gap: 6 }}>
      <span>Or continue a saved conversation</span>
      <ul style={{ listStyle: 'none', padding: 0, margin: 0, display: 'grid', gap: 6 }} aria-label="Saved Claude conversations">
        {sessions.map((s) => (
          <li key={s.claudeSessionId}>
            <button
              type="button"
              className="list-button"
              data-claude-session={s.claudeSessionId}
              disabled={s.openInSessionId !== null}
              onClick={() => onContinue(s.claudeSessionId)}
              style={{ flexDirection: 'column', alignItems: 'flex-start', padding: '8px 12px', height: 'auto' }}
            >
              <span style={{ overflow: 'hidden', textOverflow: 'ellipsis', maxWidth: '100%' }}>{s.summary || 'Untitled conversation'}</span>
              <span className="muted">
                {new Date(s.lastModified).toLocaleString()}
                {s.gitBranch ? ` · ${s.gitBranch}` : ''}
                {s.openInSessionId ? ' · already open in a session' : ''}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
