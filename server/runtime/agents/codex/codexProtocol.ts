import { z } from 'zod';

/**
 * The part of `codex app-server`'s protocol the adapter uses, as zod schemas: every message from
 * the child is checked here before the adapter acts on it. Names are listed once so a setup check
 * can prove each one exists in the installed version (`codex app-server generate-ts`).
 */
export const CODEX = {
  initialize: 'initialize',
  initialized: 'initialized',
  threadStart: 'thread/start',
  threadResume: 'thread/resume',
  turnStart: 'turn/start',
  turnInterrupt: 'turn/interrupt',
  threadItemsList: 'thread/items/list',
  itemStarted: 'item/started',
  outputDelta: 'item/commandExecution/outputDelta',
  itemCompleted: 'item/completed',
  turnCompleted: 'turn/completed',
  commandApproval: 'item/commandExecution/requestApproval',
  fileChangeApproval: 'item/fileChange/requestApproval',
} as const;

export const CODEX_CLIENT_METHODS = [CODEX.initialize, CODEX.threadStart, CODEX.threadResume, CODEX.turnStart, CODEX.turnInterrupt, CODEX.threadItemsList];
export const CODEX_CLIENT_NOTIFICATIONS = [CODEX.initialized];
export const CODEX_SERVER_NOTIFICATIONS = [CODEX.itemStarted, CODEX.outputDelta, CODEX.itemCompleted, CODEX.turnCompleted];
export const CODEX_SERVER_REQUESTS = [CODEX.commandApproval, CODEX.fileChangeApproval];

/** One line from the child: a response, a notification, or a request the client must answer. */
export const IncomingSchema = z.union([
  z.object({ id: z.union([z.number(), z.string()]), result: z.unknown() }).and(z.object({ method: z.undefined().optional() })),
  z.object({ id: z.union([z.number(), z.string()]), error: z.object({ code: z.number().optional(), message: z.string() }).passthrough() }),
  z.object({ id: z.union([z.number(), z.string()]), method: z.string(), params: z.unknown() }),
  z.object({ method: z.string(), params: z.unknown().optional() }),
]);

export const ThreadStartResultSchema = z.object({ thread: z.object({ id: z.string(), path: z.string().nullable().optional() }).passthrough() });
export const TurnStartResultSchema = z.object({ turn: z.object({ id: z.string() }).passthrough() });

const CommandExecutionItemSchema = z
  .object({
    type: z.literal('commandExecution'),
    id: z.string(),
    command: z.string(),
    status: z.enum(['inProgress', 'completed', 'failed', 'declined']),
    aggregatedOutput: z.string().nullable(),
    exitCode: z.number().int().nullable(),
  })
  .passthrough();
export type CommandExecutionItem = z.infer<typeof CommandExecutionItemSchema>;

const AgentMessageItemSchema = z.object({ type: z.literal('agentMessage'), id: z.string(), text: z.string() }).passthrough();

const ThreadItemSchema = z.union([CommandExecutionItemSchema, AgentMessageItemSchema, z.object({ type: z.string(), id: z.string() }).passthrough()]);

export const ItemNotificationSchema = z.object({ threadId: z.string(), turnId: z.string(), item: ThreadItemSchema });
export const OutputDeltaSchema = z.object({ threadId: z.string(), turnId: z.string(), itemId: z.string(), delta: z.string() });
export const TurnCompletedSchema = z.object({
  threadId: z.string(),
  turn: z.object({ id: z.string(), status: z.string(), error: z.object({ message: z.string() }).passthrough().nullable().optional() }).passthrough(),
});
export const ApprovalRequestSchema = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  command: z.string().nullable().optional(),
  reason: z.string().nullable().optional(),
});
export const ThreadItemsListResultSchema = z.object({
  data: z.array(z.object({ turnId: z.string(), item: ThreadItemSchema })),
  nextCursor: z.string().nullable(),
});
