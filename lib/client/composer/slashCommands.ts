import type { AgentCommand } from '../../protocol/agents';

/** UX-10: the list shows at most this many commands; typing narrows it. */
export const MAX_SHOWN_COMMANDS = 50;

/**
 * What the person is typing after a `/` at the start of the message: the text after the `/` while
 * the message is one word starting with `/`, else null (the list is closed).
 */
export function slashQuery(text: string): string | null {
  const match = /^\/(\S*)$/.exec(text);
  return match ? match[1]! : null;
}

/**
 * The commands whose name holds `query` (any case), those whose name starts with it first, each
 * group in the agent's order.
 */
export function matchingCommands(commands: readonly AgentCommand[], query: string): AgentCommand[] {
  const wanted = query.toLowerCase();
  const starts: AgentCommand[] = [];
  const contains: AgentCommand[] = [];
  for (const command of commands) {
    const name = command.name.toLowerCase();
    if (name.startsWith(wanted)) starts.push(command);
    else if (name.includes(wanted)) contains.push(command);
  }
  return [...starts, ...contains].slice(0, MAX_SHOWN_COMMANDS);
}

/** The composer's text once a command is chosen: the command and a space, ready for arguments. */
export function commandText(command: AgentCommand): string {
  return `/${command.name} `;
}
