'use client';
import { useEffect, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { Session } from '../../lib/protocol/rows';

/** SRC-4: whether a Codex session reads a conversation of the person's own Codex home (it takes no message). */
export function useReadOnlySource(client: RpcClient | null, session: Session): boolean {
  const [readOnly, setReadOnly] = useState(false);
  useEffect(() => {
    if (!client || session.agent !== 'codex') return;
    let live = true;
    client.call('codex.source.get', { sessionId: session.id }).then(
      (answer) => live && setReadOnly(answer.source?.readOnly ?? false),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [client, session.id, session.agent]);
  return readOnly;
}
