import { z } from 'zod';
import { ERROR_CODES } from './errors';

export const RequestIdSchema = z.union([z.string().max(128), z.number().int().safe()]);
export type RequestId = z.infer<typeof RequestIdSchema>;

/** One request frame. `params` is checked per method after the envelope is accepted. */
export const RequestEnvelopeSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: RequestIdSchema,
  method: z.string().min(1).max(128),
  params: z.unknown().optional(),
});

const ErrorDataSchema = z.looseObject({ code: z.enum(ERROR_CODES) });

export const ErrorObjectSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  data: ErrorDataSchema.optional(),
});

export const ResponseEnvelopeSchema = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id: RequestIdSchema, result: z.unknown() }),
  z.object({ jsonrpc: z.literal('2.0'), id: RequestIdSchema.nullable(), error: ErrorObjectSchema }),
]);

export const NotificationEnvelopeSchema = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string(),
  params: z.unknown(),
});
