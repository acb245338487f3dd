import { z } from 'zod';

/**
 * What the session tool server (MSG-1) and the runtime say over their loopback channel (MSG-2):
 * one JSON request per HTTP POST, its answer as JSON. Data only, shared by both ends.
 */
export const SESSION_TOOL_ENV = { url: 'HBCODE_SESSION_TOOLS_URL', key: 'HBCODE_SESSION_TOOLS_KEY' } as const;

/** The name both agents know the tool server by: its tools are `mcp__hbcode__…` to them. */
export const SESSION_TOOL_SERVER_NAME = 'hbcode';
export const SESSION_TOOL_NAMES = { list: 'list_sessions', send: 'send_message' } as const;

export const MAX_SESSION_MESSAGE_CHARS = 100_000;

export const SessionToolRequestSchema = z.discriminatedUnion('tool', [
  z.object({ tool: z.literal('list_sessions') }),
  z.object({
    tool: z.literal('send_message'),
    /** The tool call's own id, the same for each retry of that call. */
    callId: z.string().min(1).max(200),
    sessionId: z.string().min(1).max(200),
    text: z.string().min(1).max(MAX_SESSION_MESSAGE_CHARS),
  }),
]);
export type SessionToolRequest = z.infer<typeof SessionToolRequestSchema>;

export const ListedSessionSchema = z.object({
  id: z.string(),
  title: z.string(),
  agent: z.string(),
  project: z.string(),
  /** The session asking. */
  self: z.boolean(),
});
export type ListedSession = z.infer<typeof ListedSessionSchema>;

export const SessionToolAnswerSchema = z.union([
  z.object({ ok: z.literal(true), sessions: z.array(ListedSessionSchema) }),
  z.object({
    ok: z.literal(true),
    operationId: z.string(),
    delivery: z.enum(['sent', 'needs-approval', 'declined']),
    hop: z.number().int(),
  }),
  z.object({ ok: z.literal(false), code: z.string(), message: z.string() }),
]);
export type SessionToolAnswer = z.infer<typeof SessionToolAnswerSchema>;
