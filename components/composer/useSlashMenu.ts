'use client';
import { useEffect, useState, type KeyboardEvent } from 'react';
import { matchingCommands, slashQuery } from '../../lib/client/composer/slashCommands';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { AgentCommand } from '../../lib/protocol/agents';
import type { Session } from '../../lib/protocol/rows';
import { useAgentCommands } from './useAgentCommands';

/**
 * UX-10: the slash-command list of the composer. It is open while the message is `/` and one
 * word, in a Codex or Claude session, until Esc; `onKey` moves through it with ↑ ↓, chooses with
 * Enter or Tab and closes it with Esc, and answers whether it used the key.
 */
export function useSlashMenu(
  client: RpcClient | null,
  session: Session,
  text: string,
  choose: (command: AgentCommand) => void,
) {
  const query = session.agent === 'codex' || session.agent === 'claude' ? slashQuery(text) : null;
  const [dismissed, setDismissed] = useState(false);
  const [active, setActive] = useState(0);
  const open = query !== null && !dismissed;
  const commands = useAgentCommands(client, session.id, open);
  const shown = open && commands.kind === 'ready' ? matchingCommands(commands.commands, query) : [];

  // A new word is a new list: the first match is active again; leaving the `/` forgets an Esc.
  useEffect(() => setActive(0), [query]);
  useEffect(() => {
    if (query === null) setDismissed(false);
  }, [query]);

  function onKey(event: KeyboardEvent<HTMLTextAreaElement>): boolean {
    if (!open || event.nativeEvent.isComposing) return false;
    if (event.key === 'Escape') setDismissed(true);
    else if (shown.length === 0) return false;
    else if (event.key === 'ArrowDown') setActive((index) => (index + 1) % shown.length);
    else if (event.key === 'ArrowUp') setActive((index) => (index - 1 + shown.length) % shown.length);
    else if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab')
      choose(shown[Math.min(active, shown.length - 1)]!);
    else return false;
    event.preventDefault();
    return true;
  }

  return { open, query: query ?? '', commands, shown, active, onKey };
}
