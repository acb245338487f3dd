import { z } from 'zod';

/**
 * What the runtime and a Claude agent host say to each other: one request line on the host's
 * stdin, event lines on its stdout. Both sides validate every line with these schemas.
 */
export const HostRequestSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('run'),
    sdkModule: z.string(),
    executable: z.string().nullable(),
    cwd: z.string(),
    nativeSessionId: z.uuid(),
    /** The UUID our user message gets in the transcript (claude_operations.native_message_id). */
    messageUuid: z.uuid(),
    text: z.string(),
    /** The session's Claude permission mode (ACC-5, TL-5); absent: Claude Code's default. */
    permissionMode: z.enum(['default', 'acceptEdits', 'plan', 'bypassPermissions']).optional(),
    /** The session's model (ACC-5); absent or null: the account's default. */
    model: z.string().nullable().optional(),
    /** What the user allowed for this app session in earlier turns (ACC-4): rules such as `Bash(npm test)`, folders. */
    allowedTools: z.array(z.string()).optional(),
    additionalDirectories: z.array(z.string()).optional(),
  }),
  /** The account's sign-in state and the models it offers (ACC-2, ACC-5), through one SDK query. */
  z.object({ type: z.literal('describe'), sdkModule: z.string(), executable: z.string().nullable(), cwd: z.string() }),
  /** Conversations Claude saved for a project folder (ACC-8), through listSessions. */
  z.object({ type: z.literal('savedSessions'), sdkModule: z.string(), cwd: z.string(), limit: z.number().int().positive() }),
  z.object({
    type: z.literal('toolOutput'),
    sdkModule: z.string(),
    cwd: z.string(),
    nativeSessionId: z.uuid(),
    itemId: z.string(),
    offset: z.number().int().nonnegative(),
    length: z.number().int().positive(),
  }),
]);
export type HostRequest = z.infer<typeof HostRequestSchema>;

export const HostEventSchema = z.discriminatedUnion('type', [
  /** A Bash result arrived: the row's pointer and size, never its bytes. */
  z.object({
    type: z.literal('command'),
    itemId: z.string(),
    turnId: z.string(),
    command: z.string(),
    byteLength: z.number().int().nonnegative(),
    exitCode: z.number().int().nullable(),
    isError: z.boolean(),
  }),
  z.object({ type: z.literal('text'), text: z.string() }),
  /**
   * `errorCode`: what kind of failure (ACC-3): `signed_out` when Claude has no credentials,
   * `cancelled` after a stop, else Claude's own error name when it gave one.
   */
  z.object({ type: z.literal('done'), ok: z.boolean(), error: z.string().optional(), errorCode: z.string().optional() }),
  /** canUseTool asked (ACC-4); the runtime answers with a `permissionAnswer` control line of the same id. */
  z.object({
    type: z.literal('permission'),
    requestId: z.string(),
    toolName: z.string(),
    input: z.record(z.string(), z.unknown()),
    /** The SDK's PermissionUpdate suggestions, passed back as they are on "allow for this session". */
    suggestions: z.array(z.record(z.string(), z.unknown())),
    title: z.string().nullable(),
    reason: z.string().nullable(),
  }),
  /** A rate_limit_event's reading (ACC-7), as the SDK gave it. */
  z.object({
    type: z.literal('rateLimit'),
    window: z.string(),
    utilization: z.number().nullable(),
    resetsAt: z.number().nullable(),
    status: z.string(),
  }),
  /** Answer to `describe`: accountInfo and supportedModels. */
  z.object({
    type: z.literal('described'),
    account: z.object({
      email: z.string().nullable(),
      organization: z.string().nullable(),
      subscriptionType: z.string().nullable(),
      tokenSource: z.string().nullable(),
      apiKeySource: z.string().nullable(),
      apiProvider: z.string().nullable(),
    }),
    models: z.array(z.object({ value: z.string(), displayName: z.string(), description: z.string(), efforts: z.array(z.string()) })),
  }),
  /** Answer to `savedSessions`. */
  z.object({
    type: z.literal('sessions'),
    sessions: z.array(z.object({ sessionId: z.string(), summary: z.string(), lastModified: z.number(), gitBranch: z.string().nullable() })),
  }),
  z.object({ type: z.literal('output'), availableBytes: z.number().int().nonnegative(), dataBase64: z.string() }),
  z.object({ type: z.literal('missing') }),
]);
export type HostEvent = z.infer<typeof HostEventSchema>;

/** Lines the runtime writes to a running host after the request (ACC-4, ACC-6). */
export const HostControlSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('permissionAnswer'),
    requestId: z.string(),
    result: z.discriminatedUnion('behavior', [
      z.object({
        behavior: z.literal('allow'),
        updatedInput: z.record(z.string(), z.unknown()),
        updatedPermissions: z.array(z.record(z.string(), z.unknown())).optional(),
      }),
      z.object({ behavior: z.literal('deny'), message: z.string() }),
    ]),
  }),
  /** A message for the running turn, through streaming input. */
  z.object({ type: z.literal('steer'), text: z.string(), messageUuid: z.uuid() }),
  /** Stop the turn the SDK's way (Query.interrupt). */
  z.object({ type: z.literal('interrupt') }),
]);
export type HostControl = z.infer<typeof HostControlSchema>;
export type PermissionAnswer = Extract<HostControl, { type: 'permissionAnswer' }>['result'];
export type PermissionEvent = Extract<HostEvent, { type: 'permission' }>;
