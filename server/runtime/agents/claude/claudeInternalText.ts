import type { ItemStatus } from '../../../../lib/protocol/rows';

/**
 * Text Claude Code writes for the model, not for the person (TL-8): what each one means on the
 * timeline. The wording is Claude Code's own (2.x): a Stop's marker, the filler answer it saves
 * for a stopped turn, the frame around a subagent's report, an async subagent's launch result, and the `<task-notification>` that
 * brings its report back.
 */

/** What Claude Code writes as a user message when the person stops a turn: the turn's end says it. */
const INTERRUPT_MARKERS = new Set(['[Request interrupted by user]', '[Request interrupted by user for tool use]']);

export const isInterruptMarker = (text: string) => INTERRUPT_MARKERS.has(text.trim());

/**
 * The answer Claude Code saves, as a `<synthetic>` model, for a turn that got none (a stopped one)
 * when the next turn resumes the conversation: filler that keeps the conversation's turns paired.
 */
const FILLER_MODEL = '<synthetic>';
const FILLER_ANSWER = 'No response requested.';

export const isFillerAnswer = (model: string | undefined, text: string) =>
  model === FILLER_MODEL && text.trim() === FILLER_ANSWER;

/**
 * The frame Claude Code (2.1) puts around a subagent's report in the Task/Agent call's result:
 * notes for the model, one `[Subagent hand-back] …` line, the report with every line indented by
 * two spaces, then the subagent's id and usage for the model.
 */
const HAND_BACK = /^\[Subagent hand-back\][^\n]*\n/m;
const HAND_BACK_TRAILER = /\n?agentId: \S+[^\n]*(?:\n<usage>[\s\S]*?<\/usage>)?\s*$/;

/** The report of a subagent's result without what Claude Code added for the model; the text as it is when none is there. */
export function subagentReport(text: string): string {
  let report = text.replace(HAND_BACK_TRAILER, '');
  const frame = HAND_BACK.exec(report);
  if (frame) {
    report = report
      .slice(frame.index + frame[0].length)
      .split('\n')
      .map((line) => (line.startsWith('  ') ? line.slice(2) : line))
      .join('\n');
  }
  return report.trim() === '' ? text : report.trimEnd();
}

/** The Agent tool's result when it starts a subagent in the background: metadata, the subagent still runs. */
const ASYNC_LAUNCH = /^Async agent launched successfully\./;
const AGENT_ID = /^agentId: (\S+)/m;

/** The subagent id an async launch result names, or null when the text is no launch result. */
export function asyncLaunchAgentId(text: string): string | null {
  if (!ASYNC_LAUNCH.test(text.trimStart())) return null;
  return AGENT_ID.exec(text)?.[1] ?? '';
}

export interface TaskNotification {
  taskId: string;
  status: ItemStatus;
  /** The subagent's report, or the summary when it sent none. */
  result: string;
}

/** How Claude Code (2.1) opens the notice around a background task's notification. */
const SYSTEM_NOTICE = '[SYSTEM NOTIFICATION - NOT USER INPUT]';
const NOTIFICATION = /<task-notification>([\s\S]*?)<\/task-notification>/g;
const tag = (body: string, name: string) =>
  new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(body)?.[1]?.trim() ?? null;

/**
 * completed | failed | killed | stopped | blocked (Claude Code's words, in a saved notification or
 * the SDK's live `task_notification`) as the subagent row's state.
 */
export function taskStatusOf(status: string | null): ItemStatus {
  switch (status) {
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'killed':
    case 'stopped':
      return 'cancelled';
    default:
      return 'running';
  }
}

/**
 * The task notifications in a user message, and what is left of it for the person (Claude Code
 * may wrap them in a `<system-reminder>`); null when the message holds none.
 */
export function taskNotifications(text: string): { notifications: TaskNotification[]; rest: string } | null {
  if (!text.includes('<task-notification>')) return null;
  const notifications: TaskNotification[] = [];
  for (const match of text.matchAll(NOTIFICATION)) {
    const body = match[1]!;
    const taskId = tag(body, 'task-id');
    if (!taskId) continue;
    notifications.push({
      taskId,
      status: taskStatusOf(tag(body, 'status')),
      result: tag(body, 'result') ?? tag(body, 'summary') ?? '',
    });
  }
  const rest = text
    .replace(NOTIFICATION, '')
    .replace(/<\/?system-reminder>/g, '')
    .trim();
  // The notice Claude Code puts around a notification when it hands it to the model is for the model too.
  if (rest.startsWith(SYSTEM_NOTICE)) return { notifications, rest: '' };
  return { notifications, rest };
}
