import { z } from 'zod';
import { ModelNameSchema } from './names';
import { AgentKindSchema } from './rows';

/** One agent adapter and whether it can run on the runtime's computer (SES-2). */
export const AgentInfoSchema = z.object({
  agent: AgentKindSchema,
  available: z.boolean(),
  /** Why it is not available, for people. */
  reason: z.string().optional(),
});
export type AgentInfo = z.infer<typeof AgentInfoSchema>;

/** What a device answers (ACC-4). `acceptForSession`: allow this and the same again in this session. */
export const ApprovalDecisionSchema = z.enum(['accept', 'acceptForSession', 'decline']);
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** One question the agent asks the user (Codex requestUserInput / MCP elicitation, Claude AskUserQuestion). */
export const ApprovalQuestionSchema = z.object({
  id: z.string(),
  header: z.string().nullable(),
  question: z.string(),
  options: z.array(z.object({ label: z.string(), description: z.string().nullable() })),
  multiSelect: z.boolean(),
  /** A free-text answer is allowed besides the options. */
  allowOther: z.boolean(),
  secret: z.boolean(),
  /** false: the question may be left unanswered (an optional field of an MCP server's form); absent means an answer is needed. */
  required: z.boolean().optional(),
});
export type ApprovalQuestion = z.infer<typeof ApprovalQuestionSchema>;

/** `message` (MSG-4): a message from another session waits for the person before its agent gets it. */
export const ApprovalKindSchema = z.enum(['command', 'fileChange', 'permissions', 'tool', 'question', 'message']);
export type ApprovalKind = z.infer<typeof ApprovalKindSchema>;

/** Something the agent asks before it goes on; any device of the user may answer it, once (ACC-4). */
export const ApprovalSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  runId: z.string(),
  /** Defaults to `command` for approvals from before kinds existed. */
  kind: ApprovalKindSchema.default('command'),
  /** The agent's item it asks for (a command, a file change, a tool call), when it names one: that row waits for the person. */
  itemId: z.string().nullable().default(null),
  /** One line: the command, the tool and its main input, the file list. */
  command: z.string(),
  reason: z.string().nullable(),
  /** Longer detail: a diff of the change, the tool's input as JSON, the permissions asked. */
  detail: z.string().nullable().default(null),
  /** Questions to answer (kind `question`). */
  questions: z.array(ApprovalQuestionSchema).default([]),
  /** Extra choices the agent offers (Claude's permission suggestions), in words. */
  suggestions: z.array(z.string()).default([]),
  createdAt: z.number().int(),
  /** null while waiting; the answer once given (by any device); `cancel` when the run ended first. */
  decision: z.enum(['accept', 'acceptForSession', 'decline', 'cancel']).nullable(),
  /** Answers to `questions`, by question id. */
  answers: z.record(z.string(), z.array(z.string())).nullable().default(null),
  /** Set when the agent that asked is gone (a runtime restart): why it can no longer be answered. */
  expired: z.string().nullable().default(null),
});
export type Approval = z.output<typeof ApprovalSchema>;

/** What an adapter asks (ACC-4); the runtime adds id, session, run, time and the answer. */
export type ApprovalAsk = Pick<
  Approval,
  'kind' | 'itemId' | 'command' | 'reason' | 'detail' | 'questions' | 'suggestions'
>;

/** Per-session agent settings, chosen at creation and changeable between turns (ACC-5). */
export const CodexSettingsSchema = z.object({
  profileId: z.string().nullable(),
  sandbox: z.enum(['read-only', 'workspace-write', 'danger-full-access']),
  approvalPolicy: z.enum(['untrusted', 'on-request', 'never']),
  model: ModelNameSchema.nullable(),
  effort: z.enum(['minimal', 'low', 'medium', 'high', 'xhigh']).nullable(),
});
export const ClaudeSettingsSchema = z.object({
  permissionMode: z.enum(['default', 'acceptEdits', 'plan', 'bypassPermissions']),
  model: ModelNameSchema.nullable(),
});
/** MSG-4: whether messages from other sessions wait for the person's approval. */
export const SessionMessageSettingsSchema = z.object({ needApproval: z.boolean() });
export const SessionAgentSettingsSchema = z.object({
  codex: CodexSettingsSchema.optional(),
  claude: ClaudeSettingsSchema.optional(),
  messages: SessionMessageSettingsSchema.optional(),
});
export type CodexSettings = z.infer<typeof CodexSettingsSchema>;
export type ClaudeSettings = z.infer<typeof ClaudeSettingsSchema>;
export type SessionAgentSettings = z.infer<typeof SessionAgentSettingsSchema>;
export const DEFAULT_CODEX_SETTINGS: CodexSettings = {
  profileId: null,
  sandbox: 'workspace-write',
  approvalPolicy: 'on-request',
  model: null,
  effort: null,
};
export const DEFAULT_CLAUDE_SETTINGS: ClaudeSettings = { permissionMode: 'default', model: null };

/** One plan-limit reading (ACC-7): an account's window, how much is used, when it resets. */
export const UsageReadingSchema = z.object({
  agent: z.enum(['codex', 'claude']),
  /** The Codex profile id, or the Claude account id (`default` or a UUID). */
  accountKey: z.string(),
  /** The window's kind as the agent names it (`primary`, `secondary`, `five_hour`, `seven_day`…). */
  window: z.string(),
  usedPercent: z.number().min(0),
  resetsAt: z.number().int().nullable(),
  sampledAt: z.number().int(),
});
export type UsageReading = z.infer<typeof UsageReadingSchema>;

/** A model the user can pick for a session (ACC-5). */
export const AgentModelSchema = z.object({
  id: z.string(),
  label: z.string(),
  description: z.string().nullable(),
  /** Reasoning efforts it accepts; empty when it takes none. */
  efforts: z.array(z.string()),
  isDefault: z.boolean(),
});
export type AgentModelInfo = z.infer<typeof AgentModelSchema>;
export const AgentKindWithModelsSchema = z.enum(['codex', 'claude']);

/**
 * A slash command the session's agent offers (UX-10): Claude Code's own and the project's and
 * user's custom commands, or a Codex custom prompt (`prompts:<name>`). `name` has no leading `/`.
 */
export const AgentCommandSchema = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(2000),
  argumentHint: z.string().max(500).optional(),
});
export type AgentCommand = z.infer<typeof AgentCommandSchema>;

/**
 * A conversation an agent saved for a project folder, from the app or a terminal, that a new
 * session can continue with its history (ACC-8, ACC-11).
 */
export const RecentConversationSchema = z.object({
  agent: AgentKindWithModelsSchema,
  /** Pass as `claudeSessionId` (Claude) or `codexThreadId` (Codex) to `sessions.create`. */
  id: z.string(),
  /** The agent's own title, else the first prompt. */
  title: z.string(),
  firstPrompt: z.string().nullable(),
  /** When it last changed (ms). */
  updatedAt: z.number().int(),
  /** The size of the agent's saved file, when it says. */
  sizeBytes: z.number().int().nullable(),
  gitBranch: z.string().nullable(),
  /** The app session that already continues it; such a conversation cannot be taken again. */
  openInSessionId: z.string().nullable(),
  /**
   * Codex: a conversation of the person's own Codex home (`~/.codex`, `$CODEX_HOME`), not of the
   * app's profile; continuing it copies it into the profile (ACC-11), the person's file stays as it is.
   */
  ownCodexHome: z.boolean(),
});
export type RecentConversation = z.infer<typeof RecentConversationSchema>;
