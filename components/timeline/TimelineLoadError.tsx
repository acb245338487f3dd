'use client';
import { useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import { CodexRolloutPicker } from '../agents/CodexRolloutPicker';

/**
 * Why the timeline could not be read, with what helps: a Codex conversation file gone or
 * unreadable offers to choose it again (SRC-2, the only error that does), a file changed under
 * the rows shown offers Reload (SRC-3); anything else is said as it is.
 */
export function TimelineLoadError({
  client,
  sessionId,
  error,
  errorCode,
  onReload,
}: {
  client: RpcClient | null;
  sessionId: string;
  error: string;
  errorCode: string | null;
  onReload: () => void;
}) {
  const [choosing, setChoosing] = useState<string | null>(null);
  if (errorCode === 'source_unavailable' && client) {
    const choose = async (path: string) => {
      setChoosing(null);
      try {
        await client.call('codex.source.choose', { sessionId, path });
        onReload();
      } catch (e) {
        setChoosing((e as Error).message);
      }
    };
    return (
      <div className="source-problem" role="alert" data-source-error={errorCode}>
        <p className="error">{error}</p>
        {choosing && <p className="error">{choosing}</p>}
        <CodexRolloutPicker
          client={client}
          label="Choose the file again"
          onPick={(rollout) => void choose(rollout.path)}
        />
      </div>
    );
  }
  return (
    <div className="source-problem" role="alert" data-source-error={errorCode ?? undefined}>
      <p className="error">{error}</p>
      {errorCode === 'reload_required' && <button onClick={onReload}>Reload the timeline</button>}
    </div>
  );
}
