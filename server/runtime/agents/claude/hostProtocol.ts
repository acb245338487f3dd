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
  z.object({ kind: z.literal('user'), itemId: z.string(), text: z.string(), createdAt: z.number().int(), clientId: z.string().nullable() }),
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
    /** Why Claude Code refused to run it (TL-5), in its own words. */
    refusal: z.string().optional(),
  }),
  /** A live item of the turn, upserted by itemId (TL-1). */
  z.object({ type: z.literal('item'), item: HostItemSchema }),
  /** Claude said something that is no row (status, progress): the turn is alive (ACC-3). */
  z.object({ type: z.literal('activity') }),
  z.object({ type: z.literal('history'), entries: z.array(HistoryEntrySchema), older: z.string().nullable(), newer: z.string().nullable() }),
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('done'), ok: z.boolean(), error: z.string().optional() }),
  z.object({ type: z.literal('output'), availableBytes: z.number().int().nonnegative(), dataBase64: z.string() }),
  z.object({ type: z.literal('missing') }),
]);
export type HostEvent = z.infer<typeof HostEventSchema>;
