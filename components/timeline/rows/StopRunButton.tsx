'use client';
import { useState } from 'react';
import type { RpcClient } from '../../../lib/client/rpcClient';

/** Stops a running turn or command with `run.cancel`; the row then says cancelled (ACC-3). */
export function StopRunButton({
  client,
  sessionId,
  runId,
}: {
  client: RpcClient | null;
  sessionId: string;
  runId: string;
}) {
  const [stopping, setStopping] = useState(false);
  const [error, setError] = useState<string | null>(null);
  function stop() {
    if (!client) return;
    setStopping(true);
    setError(null);
    client.call('run.cancel', { sessionId, runId }).catch((e: unknown) => {
      setStopping(false);
      setError(e instanceof Error ? e.message : String(e));
    });
  }
  return (
    <>
      <button type="button" className="danger" onClick={stop} disabled={!client || stopping}>
        {stopping ? 'Stopping…' : 'Stop'}
      </button>
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}
