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
    /** Addition (ATT-2): stored image attachments, sent as image content blocks. */
    images: z.array(z.object({ path: z.string(), mimeType: z.string() })).optional(),
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
  }),
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('done'), ok: z.boolean(), error: z.string().optional() }),
  z.object({ type: z.literal('output'), availableBytes: z.number().int().nonnegative(), dataBase64: z.string() }),
  z.object({ type: z.literal('missing') }),
]);
export type HostEvent = z.infer<typeof HostEventSchema>;
