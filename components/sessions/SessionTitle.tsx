'use client';
import { Pencil } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { Session } from '../../lib/protocol/rows';

/** The open session's title, renamed in place for every device (UX-3); renaming needs the computer. */
export function SessionTitle({
  client,
  session,
  onRenamed,
}: {
  client: RpcClient | null;
  session: Session;
  onRenamed?: (session: Session) => void;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function save(event: FormEvent) {
    event.preventDefault();
    if (!client || draft === null) return;
    const title = draft.trim();
    if (title === '' || title === session.title) {
      setDraft(null);
      return;
    }
    try {
      const { session: renamed } = await client.call('sessions.rename', { sessionId: session.id, title });
      setDraft(null);
      setError(null);
      onRenamed?.(renamed);
    } catch (e) {
      setError(e instanceof Error ? e.message : 'Could not rename the session.');
    }
  }

  if (draft === null) {
    return (
      <>
        <h2 className="grow session-heading" title={session.title}>
          {session.title}
        </h2>
        {/* A pencil, not a word: on a phone the title keeps the width (UX-4). */}
        <button
          type="button"
          aria-label="Rename"
          disabled={!client}
          title={client ? 'Rename' : 'Renaming needs the computer'}
          onClick={() => setDraft(session.title)}
        >
          <Pencil size={16} aria-hidden />
        </button>
      </>
    );
  }
  return (
    <form className="row grow session-rename" onSubmit={save}>
      <input
        className="grow"
        aria-label="Session title"
        value={draft}
        maxLength={200}
        autoFocus
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') setDraft(null);
        }}
      />
      <button className="primary" type="submit" disabled={draft.trim() === ''}>
        Save
      </button>
      <button type="button" onClick={() => setDraft(null)}>
        Cancel
      </button>
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}
