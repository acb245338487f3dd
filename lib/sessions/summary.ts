import type { AgentKind, MessageState, SessionState } from '../protocol/rows';

/** The longest automatic title: the first message's first line, cut at a word where it can be (UX-8). */
export const MAX_AUTO_TITLE = 80;

/** The title a session gets when it is created without one; it stands until a message gives a better one. */
export const defaultSessionTitle = (agent: AgentKind): string => `New ${agent} session`;

/** One line of Markdown as the words a person reads: no fences, quote marks, emphasis, link targets or heading marks. */
function plainLine(line: string): string {
  return line
    .replace(/^\s{0,3}#{1,6}\s+/, '')
    .replace(/^\s*(>\s?)+/, '')
    .replace(/^\s*([-*+]|\d+[.)])\s+(\[[ xX]\]\s+)?/, '')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/<(https?:\/\/[^>]+)>/g, '$1')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/(^|[^\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?!\w)/g, '$1$2')
    .replace(/(^|[^\w_])_(?=\S)([^_]+?)(?<=\S)_(?!\w)/g, '$1$2')
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Lines of Markdown as plain text, without fence lines, rules and empty lines (UX-8). */
export function plainTextLines(markdown: string): string[] {
  return markdown
    .split('\n')
    .filter((line) => !/^\s*(```|~~~)/.test(line) && !/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line))
    .map(plainLine)
    .filter((line) => line !== '');
}

/** Cut a line to `max` characters, at a word boundary when one is near the end, with an ellipsis. */
export function cutLine(line: string, max: number): string {
  if (line.length <= max) return line;
  const head = line.slice(0, max - 1);
  // A space just past the cut means the cut already ends a word.
  const space = line.slice(0, max).lastIndexOf(' ');
  return `${(space > max * 0.6 && space < max - 1 ? head.slice(0, space) : head).trimEnd()}…`;
}

/** The list's preview of some Markdown: its last line with words on it, as plain text (UX-8). */
export function plainTextPreview(markdown: string, max: number): string {
  return cutLine(plainTextLines(markdown).at(-1) ?? '', max);
}

/**
 * The title the list shows (UX-8): a title the person gave; else, while the session still has the
 * title it was created with, the one its agent gave the conversation (Codex's thread name,
 * Claude's summary), else its first message's first line.
 */
export function displayTitle(
  title: string,
  agent: AgentKind,
  firstMessage: string | null,
  agentTitle: string | null = null,
): string {
  // A shell or terminal session's first line is a command, not what the session is about.
  if ((agent !== 'codex' && agent !== 'claude') || title !== defaultSessionTitle(agent)) return title;
  const own = agentTitle === null ? undefined : plainTextLines(agentTitle)[0];
  if (own) return cutLine(own, MAX_AUTO_TITLE);
  const line = firstMessage ? plainTextLines(firstMessage)[0] : undefined;
  return line ? cutLine(line, MAX_AUTO_TITLE) : title;
}

/**
 * UX-8 "done with unread changes": the session's last turn finished (done) after this device last
 * opened it, and nothing else needs the person. A session this device never opened counts as
 * unseen.
 */
export function hasUnreadChanges(facts: {
  state: SessionState;
  runState: MessageState | null;
  finishedAt: number | null;
  seenAt: number | null;
}): boolean {
  if (facts.state !== 'idle' || facts.runState !== 'done' || facts.finishedAt === null) return false;
  return facts.seenAt === null || facts.finishedAt > facts.seenAt;
}

/**
 * What a session needs from the person, for the list (UX-8): an approval waits on them first,
 * then a turn under way, then a turn that failed; anything else is idle.
 */
export function sessionState(facts: {
  pendingApprovals: number;
  runState: MessageState | null;
  runningCommands: number;
}): SessionState {
  if (facts.pendingApprovals > 0) return 'waitingApproval';
  if (facts.runState === 'running' || facts.runState === 'queued' || facts.runningCommands > 0) return 'running';
  if (facts.runState === 'failed') return 'failed';
  return 'idle';
}
