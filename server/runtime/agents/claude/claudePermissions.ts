import { z } from 'zod';
import type { ApprovalAsk, ApprovalQuestion } from '../../../../lib/protocol/agents';
import type { ApprovalOutcome } from '../approvals';
import type { PermissionAnswer, PermissionEvent } from './hostProtocol';

/** Claude's tool for asking the user; its answers go back in the tool's input (ACC-4). */
export const ASK_USER_QUESTION_TOOL = 'AskUserQuestion';
export const DECLINED_MESSAGE = 'The user declined this tool call.';
export const UNANSWERED_MESSAGE = 'The user did not answer the question.';
/**
 * Every refusal the runtime gives Claude Code names the tool in Claude Code's own words, so the
 * row says "declined" live and again when the saved conversation is read back (TL-5).
 */
export function refusalMessage(toolName: string, why: string): string {
  return `Permission to use ${toolName} was denied: ${why}`;
}

export const PLAN_MODE_MESSAGE =
  'This session is in plan mode: nothing may change on disk. Present the plan instead; the user switches the mode to carry it out.';

/**
 * In plan mode Claude runs read-only tools by itself and asks for anything else, leaving plan
 * mode included; the runtime refuses those at once, so a plan session never changes the disk
 * (ACC-9). Questions still reach the user.
 */
export function refusedInPlanMode(event: PermissionEvent, permissionMode: string): PermissionAnswer | null {
  if (permissionMode !== 'plan' || event.toolName === ASK_USER_QUESTION_TOOL) return null;
  return { behavior: 'deny', message: refusalMessage(event.toolName, PLAN_MODE_MESSAGE) };
}

const QuestionInputSchema = z.object({
  questions: z.array(
    z.object({
      question: z.string(),
      header: z.string().optional(),
      options: z.array(z.object({ label: z.string(), description: z.string().optional() })).default([]),
      multiSelect: z.boolean().default(false),
    }),
  ),
});

function questionsOf(event: PermissionEvent): ApprovalQuestion[] | null {
  if (event.toolName !== ASK_USER_QUESTION_TOOL) return null;
  const parsed = QuestionInputSchema.safeParse(event.input);
  if (!parsed.success) return null;
  return parsed.data.questions.map((q, index) => ({
    id: String(index),
    header: q.header ?? null,
    question: q.question,
    options: q.options.map((o) => ({ label: o.label, description: o.description ?? null })),
    multiSelect: q.multiSelect,
    allowOther: true,
    secret: false,
  }));
}

/** The tool's main input in one line: a command, a file, a pattern, else the input as JSON. */
function mainInput(input: Record<string, unknown>): string {
  for (const key of ['command', 'file_path', 'notebook_path', 'path', 'pattern', 'url', 'query']) {
    const value = input[key];
    if (typeof value === 'string' && value) return value;
  }
  return JSON.stringify(input);
}

/** A PermissionUpdate the SDK suggests, in words for the approval card. */
export function describeSuggestion(update: Record<string, unknown>): string {
  const rules = Array.isArray(update.rules) ? update.rules : [];
  const ruleText = rules
    .map((rule: { toolName?: unknown; ruleContent?: unknown }) =>
      typeof rule.ruleContent === 'string' ? `${String(rule.toolName)}(${rule.ruleContent})` : String(rule.toolName),
    )
    .join(', ');
  switch (update.type) {
    case 'addRules':
      return `${update.behavior === 'deny' ? 'Deny' : 'Allow'} ${ruleText}`;
    case 'setMode':
      return `Switch to ${String(update.mode)} mode`;
    case 'addDirectories':
      return `Allow access to ${(Array.isArray(update.directories) ? update.directories : []).join(', ')}`;
    default:
      return String(update.type);
  }
}

/** What the runtime stores and shows for one canUseTool request (ACC-4). */
export function approvalAskOf(event: PermissionEvent): ApprovalAsk {
  const questions = questionsOf(event);
  if (questions) {
    return {
      kind: 'question',
      itemId: event.toolUseId,
      command: questions.map((q) => q.question).join(' · '),
      reason: event.reason,
      detail: null,
      questions,
      suggestions: [],
    };
  }
  return {
    kind: 'tool',
    itemId: event.toolUseId,
    command: event.title ?? `${event.toolName}: ${mainInput(event.input)}`,
    reason: event.reason,
    detail: JSON.stringify(event.input, null, 2),
    questions: [],
    suggestions: event.suggestions.map(describeSuggestion),
  };
}

/**
 * "Allow for this session" applies the SDK's suggestions to this session only: a rule Claude
 * would write into the project's settings stays in the session instead.
 */
function forThisSession(suggestions: Record<string, unknown>[]): Record<string, unknown>[] {
  return suggestions.map((update) => ({ ...update, destination: 'session' }));
}

/** What "allow for this session" grants, kept for the session's later turns (ACC-4). */
export interface SessionGrants {
  /** Allow rules in Claude's own syntax: `Bash(npm test)`, `Write`. */
  allowedTools: string[];
  directories: string[];
}

export function grantsOf(suggestions: Record<string, unknown>[]): SessionGrants {
  const grants: SessionGrants = { allowedTools: [], directories: [] };
  for (const update of suggestions) {
    if (update.type === 'addRules' && update.behavior === 'allow' && Array.isArray(update.rules)) {
      for (const rule of update.rules as { toolName?: unknown; ruleContent?: unknown }[]) {
        if (typeof rule.toolName !== 'string') continue;
        grants.allowedTools.push(
          typeof rule.ruleContent === 'string' ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName,
        );
      }
    } else if (update.type === 'addDirectories' && Array.isArray(update.directories)) {
      grants.directories.push(...update.directories.filter((d): d is string => typeof d === 'string'));
    }
  }
  return grants;
}

/** The answer the host gives the SDK for the user's decision. */
export function permissionAnswerOf(event: PermissionEvent, outcome: ApprovalOutcome): PermissionAnswer {
  const questions = questionsOf(event);
  if (questions) {
    if (outcome.decision === 'decline' || outcome.decision === 'cancel' || !outcome.answers)
      return { behavior: 'deny', message: refusalMessage(event.toolName, UNANSWERED_MESSAGE) };
    // AskUserQuestion takes its answers keyed by question text; several choices joined by commas.
    const answers: Record<string, string> = {};
    for (const q of questions) {
      const chosen = outcome.answers[q.id];
      if (chosen && chosen.length > 0) answers[q.question] = chosen.join(', ');
    }
    return { behavior: 'allow', updatedInput: { ...event.input, answers } };
  }
  if (outcome.decision === 'accept') return { behavior: 'allow', updatedInput: event.input };
  if (outcome.decision === 'acceptForSession')
    return { behavior: 'allow', updatedInput: event.input, updatedPermissions: forThisSession(event.suggestions) };
  return {
    behavior: 'deny',
    message: refusalMessage(event.toolName, outcome.decision === 'cancel' ? 'The turn was stopped.' : DECLINED_MESSAGE),
  };
}
