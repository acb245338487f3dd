import { z } from 'zod';

export const AgentKindSchema = z.enum(['shell', 'codex', 'claude']);
export type AgentKind = z.infer<typeof AgentKindSchema>;

const CommandStatusSchema = z.enum(['running', 'exited', 'failed', 'cancelled']);
export type CommandStatus = z.infer<typeof CommandStatusSchema>;

export const ProjectSchema = z.object({
  id: z.string(),
  name: z.string(),
  directory: z.string(),
});
export type Project = z.infer<typeof ProjectSchema>;

export const SessionSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  agent: AgentKindSchema,
  title: z.string(),
  createdAt: z.number().int(),
});
export type Session = z.infer<typeof SessionSchema>;

/** State of one user message on its way to the agent (PWA-4, STO-2). */
export const MessageStateSchema = z.enum(['queued', 'running', 'done', 'failed', 'cancelled']);
export type MessageState = z.infer<typeof MessageStateSchema>;

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
});
export type MessageRow = z.infer<typeof MessageRowSchema>;

/** A command: status and sizes only, never output bytes (SES-3, OUT-1). */
const CommandRowSchema = z.object({
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

export const TimelineRowSchema = z.discriminatedUnion('kind', [MessageRowSchema, CommandRowSchema, SettledRowSchema]);
export type TimelineRow = z.infer<typeof TimelineRowSchema>;

export const DeviceSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number().int(),
  lastSeenAt: z.number().int().nullable(),
  current: z.boolean(),
});
export type Device = z.infer<typeof DeviceSchema>;
