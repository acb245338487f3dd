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
  /** Experimental (opted into at initialize): saved items of one turn by id, each with the output Codex saved (OUT-4). */
  threadItemsRead: 'thread/items/read',
  itemStarted: 'item/started',
  outputDelta: 'item/commandExecution/outputDelta',
  itemCompleted: 'item/completed',
  turnCompleted: 'turn/completed',
  /** The model's own items (calls and their outputs), sent for threads started with `experimentalRawEvents`. */
  rawResponseItem: 'rawResponseItem/completed',
  commandApproval: 'item/commandExecution/requestApproval',
  fileChangeApproval: 'item/fileChange/requestApproval',
  permissionsApproval: 'item/permissions/requestApproval',
  userInput: 'item/tool/requestUserInput',
  elicitation: 'mcpServer/elicitation/request',
  turnSteer: 'turn/steer',
  modelList: 'model/list',
  threadList: 'thread/list',
  accountRead: 'account/read',
  loginStart: 'account/login/start',
  logout: 'account/logout',
  loginCompleted: 'account/login/completed',
  accountUpdated: 'account/updated',
  rateLimitsRead: 'account/rateLimits/read',
  rateLimitsUpdated: 'account/rateLimits/updated',
  /** UX-8: the thread's user-facing title (its `name`) was set, by Codex or in one of its apps. */
  threadNameUpdated: 'thread/name/updated',
  /** Names a thread; the tests use it as Codex's own apps do. */
  threadNameSet: 'thread/name/set',
} as const;

export const CODEX_CLIENT_METHODS = [
  CODEX.initialize,
  CODEX.threadStart,
  CODEX.threadResume,
  CODEX.turnStart,
  CODEX.turnInterrupt,
  CODEX.threadItemsList,
  CODEX.threadItemsRead,
  CODEX.turnSteer,
  CODEX.modelList,
  CODEX.threadList,
  CODEX.accountRead,
  CODEX.loginStart,
  CODEX.logout,
  CODEX.rateLimitsRead,
  CODEX.threadNameSet,
];
export const CODEX_CLIENT_NOTIFICATIONS = [CODEX.initialized];
export const CODEX_SERVER_NOTIFICATIONS = [
  CODEX.itemStarted,
  CODEX.outputDelta,
  CODEX.itemCompleted,
  CODEX.turnCompleted,
  CODEX.rawResponseItem,
  CODEX.loginCompleted,
  CODEX.accountUpdated,
  CODEX.rateLimitsUpdated,
  CODEX.threadNameUpdated,
];
export const CODEX_SERVER_REQUESTS = [
  CODEX.commandApproval,
  CODEX.fileChangeApproval,
  CODEX.permissionsApproval,
  CODEX.userInput,
  CODEX.elicitation,
];

/** One line from the child: a response, a notification, or a request the client must answer. */
export const IncomingSchema = z.union([
  z
    .object({ id: z.union([z.number(), z.string()]), result: z.unknown() })
    .and(z.object({ method: z.undefined().optional() })),
  z.object({
    id: z.union([z.number(), z.string()]),
    error: z.object({ code: z.number().optional(), message: z.string() }).passthrough(),
  }),
  z.object({ id: z.union([z.number(), z.string()]), method: z.string(), params: z.unknown() }),
  z.object({ method: z.string(), params: z.unknown().optional() }),
]);

export const ThreadStartResultSchema = z.object({
  thread: z.object({ id: z.string(), path: z.string().nullable().optional() }).passthrough(),
});
/** UX-8: a thread's title, as `thread/name/updated` tells it and as `thread/resume` answers it (`thread.name`). */
export const ThreadNameUpdatedSchema = z.object({ threadId: z.string(), threadName: z.string().nullable().optional() });
export const ThreadResumeResultSchema = z.object({
  thread: z.object({ id: z.string(), name: z.string().nullable().optional() }).passthrough(),
});

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

const AgentMessageItemSchema = z
  .object({ type: z.literal('agentMessage'), id: z.string(), text: z.string() })
  .passthrough();

const ThreadItemSchema = z.union([
  CommandExecutionItemSchema,
  AgentMessageItemSchema,
  z.object({ type: z.string(), id: z.string() }).passthrough(),
]);

export const ItemNotificationSchema = z.object({ threadId: z.string(), turnId: z.string(), item: ThreadItemSchema });
export const OutputDeltaSchema = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  delta: z.string(),
});
export const TurnCompletedSchema = z.object({
  threadId: z.string(),
  turn: z
    .object({
      id: z.string(),
      status: z.string(),
      error: z.object({ message: z.string() }).passthrough().nullable().optional(),
    })
    .passthrough(),
});
export const ApprovalRequestSchema = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  command: z.string().nullable().optional(),
  cwd: z.string().nullable().optional(),
  reason: z.string().nullable().optional(),
  grantRoot: z.string().nullable().optional(),
});
export const PermissionsRequestSchema = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  reason: z.string().nullable(),
  permissions: z
    .object({ network: z.unknown().nullable().optional(), fileSystem: z.unknown().nullable().optional() })
    .passthrough(),
});
export const UserInputRequestSchema = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  questions: z.array(
    z.object({
      id: z.string(),
      header: z.string(),
      question: z.string(),
      isOther: z.boolean(),
      isSecret: z.boolean(),
      options: z.array(z.object({ label: z.string(), description: z.string() })).nullable(),
    }),
  ),
});
const ElicitationPropertySchema = z
  .object({
    type: z.string().optional(),
    title: z.string().optional(),
    description: z.string().optional(),
    enum: z.array(z.string()).optional(),
  })
  .passthrough();
export const ElicitationRequestSchema = z.object({
  threadId: z.string(),
  turnId: z.string().nullable(),
  serverName: z.string(),
  mode: z.string(),
  message: z.string(),
  requestedSchema: z
    .object({
      properties: z.record(z.string(), ElicitationPropertySchema).optional(),
      required: z.array(z.string()).optional(),
    })
    .passthrough()
    .optional(),
  url: z.string().optional(),
  _meta: z.unknown().optional(),
});
/**
 * The `_meta` of an elicitation that is Codex's own question before an MCP tool runs (a server
 * whose tools are not pre-approved), not a form the MCP server sent. `persist` lists the longer
 * grants Codex offers (`session`, `always`).
 */
export const McpToolApprovalMetaSchema = z
  .object({
    codex_approval_kind: z.literal('mcp_tool_call'),
    persist: z.union([z.string(), z.array(z.string())]).optional(),
    tool_name: z.string().optional(),
    tool_title: z.string().optional(),
    tool_description: z.string().nullable().optional(),
    tool_params: z.unknown().optional(),
  })
  .passthrough();
export const FileChangeItemSchema = z
  .object({
    type: z.literal('fileChange'),
    id: z.string(),
    changes: z.array(z.object({ path: z.string(), diff: z.string() }).passthrough()),
  })
  .passthrough();

const AccountSchema = z
  .object({ type: z.string(), email: z.string().nullable().optional(), planType: z.string().nullable().optional() })
  .passthrough();
export const AccountReadResultSchema = z
  .object({ account: AccountSchema.nullable(), requiresOpenaiAuth: z.boolean() })
  .passthrough();
export const LoginStartResultSchema = z
  .object({
    type: z.string(),
    loginId: z.string().optional(),
    verificationUrl: z.string().optional(),
    userCode: z.string().optional(),
    authUrl: z.string().optional(),
  })
  .passthrough();
export const LoginCompletedSchema = z
  .object({ loginId: z.string().nullable(), success: z.boolean(), error: z.string().nullable() })
  .passthrough();
const RateLimitWindowSchema = z.object({
  usedPercent: z.number(),
  windowDurationMins: z.number().nullable().optional(),
  resetsAt: z.number().nullable().optional(),
});
export const RateLimitSnapshotSchema = z
  .object({
    limitId: z.string().nullable().optional(),
    primary: RateLimitWindowSchema.nullable().optional(),
    secondary: RateLimitWindowSchema.nullable().optional(),
  })
  .passthrough();
export const RateLimitsReadResultSchema = z.object({ rateLimits: RateLimitSnapshotSchema }).passthrough();
export const RateLimitsUpdatedSchema = z.object({ rateLimits: RateLimitSnapshotSchema }).passthrough();
export const ModelListResultSchema = z.object({
  data: z.array(
    z
      .object({
        id: z.string(),
        model: z.string(),
        displayName: z.string(),
        description: z.string(),
        hidden: z.boolean(),
        supportedReasoningEfforts: z.array(z.object({ reasoningEffort: z.string() }).passthrough()),
        isDefault: z.boolean(),
      })
      .passthrough(),
  ),
  nextCursor: z.string().nullable(),
});
export const ThreadListResultSchema = z.object({
  data: z.array(
    z
      .object({
        id: z.string(),
        preview: z.string(),
        cwd: z.string().nullable().optional(),
        createdAt: z.number().nullable().optional(),
        updatedAt: z.number().nullable().optional(),
        name: z.string().nullable().optional(),
        path: z.string().nullable().optional(),
        gitInfo: z.object({ branch: z.string().nullable().optional() }).nullable().optional(),
      })
      .passthrough(),
  ),
  nextCursor: z.string().nullable(),
});
export const ThreadItemsListResultSchema = z.object({
  data: z.array(z.object({ turnId: z.string(), item: ThreadItemSchema })),
  nextCursor: z.string().nullable(),
});
export const ThreadItemsReadResultSchema = z.object({
  data: z.array(z.object({ turnId: z.string(), item: ThreadItemSchema })),
});
