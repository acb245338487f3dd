'use client';
import { useEffect, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { AgentCommand } from '../../lib/protocol/agents';

export type AgentCommands =
  { kind: 'loading' } | { kind: 'ready'; commands: AgentCommand[] } | { kind: 'failed'; message: string };

/**
 * UX-10: the session's agent's slash commands, asked of the runtime (`agents.commands`) the first
 * time they are `wanted`, then kept for the session; after a failure they are asked again the
 * next time the list opens.
 */
export function useAgentCommands(client: RpcClient | null, sessionId: string, wanted: boolean): AgentCommands {
  const [answer, setAnswer] = useState<{ sessionId: string; commands: AgentCommands } | null>(null);
  const current = answer?.sessionId === sessionId ? answer.commands : null;
  const needed = wanted && client !== null && current === null;

  useEffect(() => {
    if (!needed || !client) return;
    let live = true;
    client.call('agents.commands', { sessionId }).then(
      (r) => live && setAnswer({ sessionId, commands: { kind: 'ready', commands: r.commands } }),
      (error: unknown) =>
        live &&
        setAnswer({
          sessionId,
          commands: { kind: 'failed', message: error instanceof Error ? error.message : String(error) },
        }),
    );
    return () => {
      live = false;
    };
  }, [needed, client, sessionId]);

  useEffect(() => {
    if (!wanted && current?.kind === 'failed') setAnswer(null);
  }, [wanted, current]);

  if (current) return current;
  return client === null ? { kind: 'failed', message: 'Not connected to the desktop.' } : { kind: 'loading' };
}
