import { z } from 'zod';
import { MessageAttachmentSchema } from './attachments';

export const AgentKindSchema = z.enum(['shell', 'codex', 'claude', 'terminal']);
export type AgentKind = z.infer<typeof AgentKindSchema>;

const CommandStatusSchema = z.enum(['running', 'exited', 'failed', 'cancelled']);
export type CommandStatus = z.infer<typeof CommandStatusSchema>;

export const ProjectSchema = z.object({
  id: z.string(),
  name: z.string(),
  directory: z.string(),
});
export type Project = z.infer<typeof ProjectSchema>;

/** A session's own branch and the git worktree its agent runs in (SES-10). */
export const SessionWorktreeSchema = z.object({ branch: z.string(), path: z.string() });
export type SessionWorktree = z.infer<typeof SessionWorktreeSchema>;

export const SessionSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  agent: AgentKindSchema,
  title: z.string(),
  createdAt: z.number().int(),
  /** Addition (UX-3): when the session last did anything (a message, a command, an answer); the list sorts by it. */
  lastActivityAt: z.number().int().optional(),
  /** Addition (UX-3): one line of that latest activity, for the list. */
  lastActivity: z.string().optional(),
  /** Addition (UX-8): what the session needs from the person, for the list's badge. */
  state: z.enum(['waitingApproval', 'running', 'failed', 'idle']).optional(),
  /** Addition (UX-8): its last turn finished after the asking device last opened it ("done, unread"). */
  unread: z.literal(true).optional(),
  /** Addition (SES-10): the session's own branch and the git worktree its agent runs in. */
  worktree: SessionWorktreeSchema.optional(),
});
export type Session = z.infer<typeof SessionSchema>;
export type SessionState = NonNullable<Session['state']>;

/** State of one user message on its way to the agent (PWA-4, STO-2). */
export const MessageStateSchema = z.enum(['queued', 'running', 'done', 'failed', 'cancelled']);
export type MessageState = z.infer<typeof MessageStateSchema>;

/** MSG-4: a message from another session was handed on, waits for the person's approval, or was declined. */
export const SessionMessageDeliverySchema = z.enum(['sent', 'needs-approval', 'declined']);
export type SessionMessageDelivery = z.infer<typeof SessionMessageDeliverySchema>;
export type MessageSender = z.infer<typeof MessageSenderSchema>;

/** MSG-1: the session that sent a message, for the link to it. */
export const MessageSenderSchema = z.object({
  sessionId: z.string(),
  title: z.string(),
  hop: z.number().int().min(1),
  delivery: SessionMessageDeliverySchema,
});

/** How far a steering message got (ACC-6). */
export const SteerDeliverySchema = z.enum(['sending', 'accepted', 'delivered', 'notDelivered']);
export type SteerDelivery = z.infer<typeof SteerDeliverySchema>;

/** A user message (SES-3). */
const MessageRowSchema = z.object({
  kind: z.literal('message'),
  id: z.string(),
  sessionId: z.string(),
  operationId: z.string(),
  runId: z.string(),
  text: z.string(),
  state: MessageStateSchema,
  createdAt: z.number().int(),
  /** Why a failed message failed, in words the user can act on (ACC-3); `action` names the fix the app offers. */
  failure: z
    .object({
      code: z.string(),
      message: z.string(),
      action: z.enum(['codexSignIn', 'claudeSignIn', 'install', 'resend']).nullable(),
    })
    .optional(),
  /**
   * Addition (ACC-6): a message that steers a running turn. `sending` while the agent is asked,
   * `accepted` once the agent acknowledged it, `delivered` (state `done`) once the agent's own
   * events show its model was sent it, `notDelivered` (state `failed`, action `resend`) when the turn
   * ended or the runtime stopped first.
   */
  steer: SteerDeliverySchema.optional(),
  /** Set while a running turn has had no agent event for the stall time (ACC-3): the app offers Stop. */
  stalledSince: z.number().int().optional(),
  /** The message's attachments (ATT-1): complete, verified uploads only. */
  attachments: z.array(MessageAttachmentSchema).optional(),
  /** Addition (MSG-1): an agent in another session sent this message. */
  fromSession: MessageSenderSchema.optional(),
});
export type MessageRow = z.infer<typeof MessageRowSchema>;

/** A command: status and sizes only, never output bytes (SES-3, OUT-1). */
export const CommandRowSchema = z.object({
  kind: z.literal('command'),
  id: z.string(),
  sessionId: z.string(),
  runId: z.string(),
  commandId: z.string(),
  command: z.string(),
  status: CommandStatusSchema,
  exitCode: z.number().int().nullable(),
  byteLength: z.number().int().nonnegative(),
  generation: z.number().int().nonnegative(),
  complete: z.boolean(),
  sourceIncomplete: z.boolean(),
  error: z.string().optional(),
  /** A cancelled command that was declined and never ran (TL-9): shown as "declined". */
  declined: z.boolean().optional(),
  /** `agent`: the bytes live only in the agent's own history and are read through it (OUT-7). */
  outputSource: z.enum(['artifact', 'agent']).optional(),
  startedAt: z.number().int(),
  endedAt: z.number().int().nullable(),
});
export type CommandRow = z.infer<typeof CommandRowSchema>;

/** The agent's own history took over from here (SES-3); carries the agent's text. */
const SettledRowSchema = z.object({
  kind: z.literal('settled'),
  id: z.string(),
  sessionId: z.string(),
  runId: z.string(),
  text: z.string(),
  createdAt: z.number().int(),
});
export type SettledRow = z.infer<typeof SettledRowSchema>;

/**
 * Long text an agent item carries (a diff, a tool result, raw event text): the first bytes inline,
 * the whole through `sessions.itemText` (TL-1). `truncated` is never silent: the row says how much more there is.
 */
export const TextBodySchema = z.object({
  text: z.string(),
  /** UTF-8 length of the whole text. */
  byteLength: z.number().int().nonnegative(),
  truncated: z.boolean(),
});
export type TextBody = z.infer<typeof TextBodySchema>;

/** Fields every agent item row has (TL-1, TL-3). */
const AgentItemBase = {
  /** Stable across live and saved: `i:<itemId>` (or `i:<parentItemId>:<itemId>` inside a subagent). */
  id: z.string(),
  sessionId: z.string(),
  /** The app run that produced it; null for history the app did not run (a continued conversation). */
  runId: z.string().nullable(),
  /** The agent's own id for the item (Codex item id, Claude tool_use id or message uuid). */
  itemId: z.string(),
  /** The timeline it belongs to: null for the session's own, a subagent row's itemId for that subagent's. */
  parentItemId: z.string().nullable(),
  createdAt: z.number().int(),
  /** `live`: from the live overlay while the turn runs; `saved`: from the agent's own history (TL-3). */
  source: z.enum(['live', 'saved']),
};

const ItemStatusSchema = z.enum(['running', 'completed', 'failed', 'declined', 'cancelled']);
export type ItemStatus = z.infer<typeof ItemStatusSchema>;

/** A user message found in the agent's history that no app run of this session sent (TL-1). */
const UserTextRowSchema = z.object({ ...AgentItemBase, kind: z.literal('userText'), text: z.string() });
/** Agent text, Markdown without raw HTML; `streaming` while deltas still arrive (TL-1). */
const AgentTextRowSchema = z.object({
  ...AgentItemBase,
  kind: z.literal('agentText'),
  text: z.string(),
  streaming: z.boolean(),
});
/** A reasoning summary, shown collapsed (TL-1). */
const ReasoningRowSchema = z.object({
  ...AgentItemBase,
  kind: z.literal('reasoning'),
  text: z.string(),
  streaming: z.boolean(),
});

export const PlanEntrySchema = z.object({ text: z.string(), status: z.enum(['pending', 'inProgress', 'completed']) });
/** A plan or todo list, updated in place (TL-1). */
const PlanRowSchema = z.object({
  ...AgentItemBase,
  kind: z.literal('plan'),
  explanation: z.string().nullable(),
  entries: z.array(PlanEntrySchema),
});

export const FileChangeSchema = z.object({
  path: z.string(),
  change: z.enum(['add', 'delete', 'update']),
  /** Set when the file was moved or renamed. */
  movePath: z.string().nullable(),
  /** Unified diff of this file (`---`/`+++`/`@@` hunks); empty for a binary file. */
  diff: TextBodySchema,
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  binary: z.boolean(),
});
export type FileChange = z.infer<typeof FileChangeSchema>;
/** Files the agent edited or created, each with its diff (TL-1). */
const FileChangeRowSchema = z.object({
  ...AgentItemBase,
  kind: z.literal('fileChange'),
  status: ItemStatusSchema,
  files: z.array(FileChangeSchema),
});

/** Any other tool (Read, Grep, WebSearch, MCP, image view…): one row completed in place (TL-1). */
const ToolCallRowSchema = z.object({
  ...AgentItemBase,
  kind: z.literal('toolCall'),
  /** The tool's name as the agent gives it (`Read`, `webSearch`, `mcp:<server>/<tool>`). */
  tool: z.string(),
  /** One line for people: `Read src/app.ts`, `Search "vitest projects"`. */
  title: z.string(),
  input: TextBodySchema,
  status: ItemStatusSchema,
  /** Decoded result text (TL-2); null while running. */
  result: TextBodySchema.nullable(),
  /** Why the tool was refused or failed, in words. */
  error: z.string().nullable(),
});
/** A subagent; its own timeline is `sessions.timeline` with `parentItemId` = this row's itemId (TL-1). */
const SubagentRowSchema = z.object({
  ...AgentItemBase,
  kind: z.literal('subagent'),
  title: z.string(),
  agentType: z.string().nullable(),
  status: ItemStatusSchema,
  result: TextBodySchema.nullable(),
});

export const TokenUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cachedInputTokens: z.number().int().nonnegative().nullable(),
  reasoningTokens: z.number().int().nonnegative().nullable(),
});
/** The end of an agent turn (TL-1). */
const TurnEndRowSchema = z.object({
  ...AgentItemBase,
  kind: z.literal('turnEnd'),
  status: z.enum(['completed', 'interrupted', 'failed']),
  durationMs: z.number().int().nonnegative().nullable(),
  usage: TokenUsageSchema.nullable(),
  costUsd: z.number().nonnegative().nullable(),
  error: z.string().nullable(),
});
/** The agent compacted its context (TL-1). */
const CompactionRowSchema = z.object({ ...AgentItemBase, kind: z.literal('compaction'), text: z.string().nullable() });
/** An error the agent reported (TL-1). */
const AgentErrorRowSchema = z.object({
  ...AgentItemBase,
  kind: z.literal('agentError'),
  message: z.string(),
  detail: TextBodySchema.nullable(),
});
/** Anything this version does not know or could not decode: the raw text, paged (TL-1). */
const RawItemRowSchema = z.object({
  ...AgentItemBase,
  kind: z.literal('rawItem'),
  label: z.string(),
  text: TextBodySchema,
});

export const AGENT_ITEM_ROW_SCHEMAS = [
  UserTextRowSchema,
  AgentTextRowSchema,
  ReasoningRowSchema,
  PlanRowSchema,
  FileChangeRowSchema,
  ToolCallRowSchema,
  SubagentRowSchema,
  TurnEndRowSchema,
  CompactionRowSchema,
  AgentErrorRowSchema,
  RawItemRowSchema,
] as const;
export const AgentItemRowSchema = z.discriminatedUnion('kind', AGENT_ITEM_ROW_SCHEMAS);
export type AgentItemRow = z.infer<typeof AgentItemRowSchema>;
export type AgentItemKind = AgentItemRow['kind'];
/** What an agent adapter reports: the row without the fields the runtime fills in. */
export type AgentItem = AgentItemRow extends infer R
  ? R extends AgentItemRow
    ? Omit<R, 'id' | 'sessionId' | 'runId' | 'source'>
    : never
  : never;

export const TimelineRowSchema = z.discriminatedUnion('kind', [
  MessageRowSchema,
  CommandRowSchema,
  SettledRowSchema,
  ...AGENT_ITEM_ROW_SCHEMAS,
]);
export type TimelineRow = z.infer<typeof TimelineRowSchema>;

export const DeviceSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number().int(),
  lastSeenAt: z.number().int().nullable(),
  current: z.boolean(),
});
export type Device = z.infer<typeof DeviceSchema>;
