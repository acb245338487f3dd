import { z } from 'zod';
import { AGENT_ITEM_ROW_SCHEMAS } from '../../../../lib/protocol/rows';

/** An agent item as the host reports it: the row less what the runtime fills in (TL-1). */
const omitted = { id: true, sessionId: true, runId: true, source: true } as const;
const S = AGENT_ITEM_ROW_SCHEMAS;
export const HostItemSchema = z.discriminatedUnion('kind', [
  S[0].omit(omitted),
  S[1].omit(omitted),
  S[2].omit(omitted),
  S[3].omit(omitted),
  S[4].omit(omitted),
  S[5].omit(omitted),
  S[6].omit(omitted),
  S[7].omit(omitted),
  S[8].omit(omitted),
  S[9].omit(omitted),
  S[10].omit(omitted),
]);

/** One entry of a saved page, as `Agent.historyPage` returns it (TL-4). */
const HistoryEntrySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('item'), item: HostItemSchema }),
  z.object({
    kind: z.literal('user'),
    itemId: z.string(),
    text: z.string(),
    createdAt: z.number().int(),
    clientId: z.string().nullable(),
  }),
  z.object({ kind: z.literal('command'), itemId: z.string(), command: z.string(), createdAt: z.number().int() }),
]);

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
    /** Addition (ATT-2): stored image attachments, sent as image content blocks. */
    images: z.array(z.object({ path: z.string(), mimeType: z.string() })).optional(),
    /** Addition (MSG-1): MCP servers the runtime gives the turn (the session tool server), by name; their tools in `toolsAllowed`. */
    mcpServers: z
      .record(
        z.string(),
        z.object({ command: z.string(), args: z.array(z.string()), env: z.record(z.string(), z.string()) }),
      )
      .optional(),
    toolsAllowed: z.array(z.string()).optional(),
  }),
  /** One page of the saved conversation or of one subagent's (TL-4). */
  z.object({
    type: z.literal('historyPage'),
    sdkModule: z.string(),
    cwd: z.string(),
    nativeSessionId: z.uuid(),
    /** null: the conversation; a Task/Agent tool id: that subagent's messages. */
    parentItemId: z.string().nullable(),
    before: z.string().nullable(),
    after: z.string().nullable(),
    limit: z.number().int().positive().max(1000),
  }),
  /** A slice of one long text of a saved item (TL-1). */
  z.object({
    type: z.literal('itemText'),
    sdkModule: z.string(),
    cwd: z.string(),
    nativeSessionId: z.uuid(),
    parentItemId: z.string().nullable(),
    itemId: z.string(),
    field: z.string(),
    offset: z.number().int().nonnegative(),
    length: z.number().int().positive(),
  }),
  /** The account's sign-in state and the models it offers (ACC-2, ACC-5), through one SDK query. */
  z.object({ type: z.literal('describe'), sdkModule: z.string(), executable: z.string().nullable(), cwd: z.string() }),
  /** UX-10: the slash commands Claude Code offers in a project folder, through supportedCommands. */
  z.object({ type: z.literal('commands'), sdkModule: z.string(), executable: z.string().nullable(), cwd: z.string() }),
  /** Conversations Claude saved for a project folder (ACC-8), through listSessions. */
  z.object({
    type: z.literal('savedSessions'),
    sdkModule: z.string(),
    cwd: z.string(),
    limit: z.number().int().positive(),
  }),
  /** UX-8: the title Claude gave a conversation (its summary, or a /rename), through getSessionInfo. */
  z.object({ type: z.literal('sessionTitle'), sdkModule: z.string(), cwd: z.string(), nativeSessionId: z.uuid() }),
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

/** A file a Bash result was read from, as it was then (OUT-7, resultSources.ts). */
export const ResultSourceSchema = z.object({
  path: z.string(),
  ino: z.number(),
  size: z.number().int().nonnegative(),
  mtimeMs: z.number(),
  /** The file only grows (a transcript); else it never changes (a persisted result). */
  grows: z.boolean(),
});
export type ResultSource = z.infer<typeof ResultSourceSchema>;

export const HostEventSchema = z.discriminatedUnion('type', [
  /** Claude asked for a Bash command: its row is made now, running, and keeps this place (TL-3). */
  z.object({ type: z.literal('commandStarted'), itemId: z.string(), command: z.string() }),
  /** A Bash result arrived: the row's pointer and size, never its bytes. */
  z.object({
    type: z.literal('command'),
    itemId: z.string(),
    turnId: z.string(),
    command: z.string(),
    byteLength: z.number().int().nonnegative(),
    exitCode: z.number().int().nullable(),
    isError: z.boolean(),
    /** Why Claude Code refused to run it (TL-5), in its own words. */
    refusal: z.string().optional(),
  }),
  /** A live item of the turn, upserted by itemId (TL-1). */
  z.object({
    type: z.literal('item'),
    item: HostItemSchema,
    /** On a turn end: the uuid of the turn's last saved message, after which its record goes (TL-6). */
    afterMessageUuid: z.string().optional(),
  }),
  /** Claude said something that is no row (status, progress): the turn is alive (ACC-3). */
  z.object({ type: z.literal('activity') }),
  z.object({
    type: z.literal('history'),
    entries: z.array(HistoryEntrySchema),
    older: z.string().nullable(),
    newer: z.string().nullable(),
    /** Per message of the page: its uuid and how many entries precede its end, where a turn record goes (TL-6). */
    anchors: z.array(z.object({ uuid: z.string(), index: z.number().int().nonnegative() })).optional(),
  }),
  z.object({ type: z.literal('text'), text: z.string() }),
  /** A steering message went into the SDK's streaming input (ACC-6): Claude Code answers it before the run's input closes. */
  z.object({ type: z.literal('steerTaken'), messageUuid: z.string() }),
  /**
   * `errorCode`: what kind of failure (ACC-3): `signed_out` when Claude has no credentials,
   * `cancelled` after a stop, else Claude's own error name when it gave one.
   */
  z.object({
    type: z.literal('done'),
    ok: z.boolean(),
    error: z.string().optional(),
    errorCode: z.string().optional(),
  }),
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
    /** The tool call it is asked for: its row shows "waiting for your approval" (ACC-4). */
    toolUseId: z.string().nullable().default(null),
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
    models: z.array(
      z.object({ value: z.string(), displayName: z.string(), description: z.string(), efforts: z.array(z.string()) }),
    ),
  }),
  /** Answer to `commands`. */
  z.object({
    type: z.literal('commands'),
    commands: z.array(z.object({ name: z.string(), description: z.string(), argumentHint: z.string() })),
  }),
  /** Answer to `sessionTitle`: null while Claude has no title of its own for it. */
  z.object({ type: z.literal('sessionTitle'), title: z.string().nullable() }),
  /** Answer to `savedSessions`. */
  z.object({
    type: z.literal('sessions'),
    sessions: z.array(
      z.object({
        sessionId: z.string(),
        summary: z.string(),
        lastModified: z.number(),
        gitBranch: z.string().nullable(),
        firstPrompt: z.string().nullable().default(null),
        fileSize: z.number().nullable().default(null),
      }),
    ),
  }),
  z.object({
    type: z.literal('output'),
    availableBytes: z.number().int().nonnegative(),
    dataBase64: z.string(),
    /** Of a Bash result (OUT-7): the files it came from, so a copy kept elsewhere knows when it is stale. */
    sources: z.array(ResultSourceSchema).optional(),
  }),
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

/**
 * The long-lived host's lines (SES-8): the runtime writes requests, control lines for a running
 * request and cancellations, each with the request's id; the host answers with events of that id
 * and one `end` per request, after its last event.
 */
export const HostInboundSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('request'), id: z.string(), request: HostRequestSchema }),
  z.object({ kind: z.literal('control'), id: z.string(), control: HostControlSchema }),
  z.object({ kind: z.literal('cancel'), id: z.string() }),
]);
export type HostInbound = z.infer<typeof HostInboundSchema>;

export const HostOutboundSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('event'), id: z.string(), event: HostEventSchema }),
  z.object({ kind: z.literal('end'), id: z.string() }),
]);
export type HostOutbound = z.infer<typeof HostOutboundSchema>;

/** The variable that marks every process a host starts, down to a Bash command's children (SES-9). */
export { PROCESS_TAG_VARIABLE } from '../../process/taggedProcesses';

/** The tag of one run's processes: under its host's, so stopping the host's stops the run's too. */
export function runTag(hostTag: string, runUuid: string): string {
  return `${hostTag}/${runUuid}`;
}
