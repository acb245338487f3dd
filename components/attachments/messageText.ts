import type { AgentKind } from '../../lib/protocol/rows';

/**
 * The text of a message that is only files (a message always has text): the file names for an
 * agent; nothing for the shell, where the text is the command the paths are appended to (ATT-2).
 */
export function textForAttachmentsOnly(agent: AgentKind, items: readonly { name: string }[]): string {
  if (agent === 'shell' || items.length === 0) return '';
  return `Attached: ${items.map((item) => item.name).join(', ')}`;
}
