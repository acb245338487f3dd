import type { AgentCommand } from '../../../lib/protocol/agents';

/** The protocol's bounds of a command (AgentCommandSchema): longer text is cut, not refused. */
const MAX_NAME = 200;
const MAX_DESCRIPTION = 2000;
const MAX_HINT = 500;

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * UX-10: an agent's commands as the protocol carries them. What the agent says is not ours to
 * trust: a command with no name or one too long to send is left out, long descriptions are cut.
 */
export function boundedCommands(
  commands: readonly { name: string; description: string; argumentHint?: string | null }[],
): AgentCommand[] {
  return commands
    .filter((c) => c.name !== '' && c.name.length <= MAX_NAME && !/\s/.test(c.name))
    .map((c) => ({
      name: c.name,
      description: clip(c.description, MAX_DESCRIPTION),
      ...(c.argumentHint ? { argumentHint: clip(c.argumentHint, MAX_HINT) } : {}),
    }));
}
