import { z } from 'zod';
import { FileEntrySchema } from '../../protocol/files';
import { HttpChunkHeaderSchema } from '../../protocol/httpBytes';
import { MessageStateSchema, ProjectSchema, SessionSchema, TimelineRowSchema } from '../../protocol/rows';
import { ConvertedPageSchema, PageViewSchema } from '../../markdown/convertedPage';

/**
 * What the app's IndexedDB stores hold, checked with the protocol's own schemas when a record is
 * read back (PWA-8): storage outlives the code that wrote it, another tab or an older version may
 * have written it, and the device itself may have damaged it. A record that fails is reported and
 * treated as not held; it never reaches a screen as if it were valid.
 */
const count = z.number().int().nonnegative();
const bytes = z.instanceof(ArrayBuffer);

export const PairingRecordSchema = z.object({
  token: z.string().min(1),
  deviceId: z.string().min(1),
  deviceName: z.string(),
  pairedAt: z.number(),
});

/**
 * An unsent message (PWA-4). One that fails is never sent half-read, and never deleted either: it
 * stays where it is, reported, for a later version (or a person with the developer tools) to recover.
 */
export const OutboxRecordSchema = z.object({
  operationId: z.string().min(1),
  sessionId: z.string().min(1),
  createdAt: z.number(),
  seq: z.number(),
  state: z.enum(['queued', 'sending', 'sent', 'failed']),
  attempts: count,
  error: z.string().optional(),
  runId: z.string().optional(),
  runState: MessageStateSchema.optional(),
  claimedBy: z.string().optional(),
  claimedUntil: z.number().optional(),
  sentAt: z.number().optional(),
  text: z.string(),
  mode: z.literal('steer').optional(),
  attachments: z
    .array(
      z.object({
        name: z.string(),
        mimeType: z.string(),
        byteLength: count,
        sha256: z.string(),
        blob: z.instanceof(Blob),
      }),
    )
    .optional(),
});

export const SnapshotRecordSchema = z.object({
  key: z.string(),
  projects: z.array(ProjectSchema).optional(),
  sessions: z.array(SessionSchema).optional(),
  rows: z.array(TimelineRowSchema).optional(),
  entries: z.array(FileEntrySchema).optional(),
  savedAt: z.number(),
});

const BOUNDED_RECORD_SCHEMAS = {
  outputPages: z.object({
    key: z.string(),
    source: z.string(),
    generation: count,
    offset: count,
    bytes,
    byteLength: count,
    lastUsed: z.number(),
  }),
  fileChunks: z.object({
    projectDirectory: z.string(),
    path: z.string(),
    contentVersion: z.string(),
    offset: count,
    header: HttpChunkHeaderSchema,
    bytes,
    lastUsed: z.number(),
  }),
  readerPages: z.object({
    url: z.string(),
    finalUrl: z.string(),
    views: z.object({ article: ConvertedPageSchema.optional(), fullPage: ConvertedPageSchema.optional() }),
    preferred: PageViewSchema,
    byteLength: count,
    savedAt: z.number(),
    lastUsed: z.number(),
  }),
  timelinePages: z.object({
    key: z.string(),
    sessionId: z.string(),
    rows: z.array(TimelineRowSchema),
    older: z.string().nullable(),
    revision: z.number(),
    byteLength: count,
    savedAt: z.number(),
    lastUsed: z.number(),
  }),
} as const;

let unreadable = 0;

/**
 * `value` when it matches `schema`; otherwise null, with a warning naming the store and the first
 * problem (every record up to the tenth, then every hundredth, as with dropped frames).
 */
export function checkedRecord<T>(store: string, schema: z.ZodType<T>, value: unknown): T | null {
  if (value === undefined || value === null) return null;
  const checked = schema.safeParse(value);
  // The record itself, not the parsed copy: nothing is stripped and nothing deep-copied.
  if (checked.success) return value as T;
  unreadable++;
  if (unreadable <= 10 || unreadable % 100 === 0) {
    const issue = checked.error.issues[0];
    console.warn(
      `Ignored a saved record in ${store} that does not match its schema (${issue?.path.join('.') || 'record'}: ${issue?.message}); ${unreadable} so far.`,
    );
  }
  return null;
}

/** The records of `values` that match `schema`; each one that does not is reported and left out. */
export function checkedRecords<T>(store: string, schema: z.ZodType<T>, values: readonly unknown[]): T[] {
  const kept: T[] = [];
  for (const value of values) {
    const record = checkedRecord(store, schema, value);
    if (record !== null) kept.push(record);
  }
  return kept;
}

/** The schema of a bounded cache store's records. */
export function boundedRecordSchema(name: keyof typeof BOUNDED_RECORD_SCHEMAS): z.ZodType {
  return BOUNDED_RECORD_SCHEMAS[name];
}
