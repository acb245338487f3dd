import { z } from 'zod';
import { AnyItemSchema } from './codexItemSchemas';

/** The `codex app-server` notifications the live timeline reads (TL-1), checked before use. */
export const CODEX_LIVE = {
  itemStarted: 'item/started',
  itemCompleted: 'item/completed',
  agentMessageDelta: 'item/agentMessage/delta',
  planDelta: 'item/plan/delta',
  reasoningSummaryDelta: 'item/reasoning/summaryTextDelta',
  reasoningSummaryPartAdded: 'item/reasoning/summaryPartAdded',
  fileChangePatchUpdated: 'item/fileChange/patchUpdated',
  turnPlanUpdated: 'turn/plan/updated',
  tokenUsageUpdated: 'thread/tokenUsage/updated',
  error: 'error',
  turnCompleted: 'turn/completed',
} as const;

const inTurn = { threadId: z.string(), turnId: z.string() };
export const LiveItemSchema = z.object({
  ...inTurn,
  item: AnyItemSchema,
  startedAtMs: z.number().optional(),
  completedAtMs: z.number().optional(),
});
export const TextDeltaSchema = z.object({
  ...inTurn,
  itemId: z.string(),
  delta: z.string(),
  summaryIndex: z.number().int().nonnegative().optional(),
});
export const SummaryPartSchema = z.object({
  ...inTurn,
  itemId: z.string(),
  summaryIndex: z.number().int().nonnegative(),
});
export const PatchUpdatedSchema = z.object({ ...inTurn, itemId: z.string(), changes: z.array(z.unknown()) });
export const TurnPlanSchema = z.object({
  ...inTurn,
  explanation: z.string().nullable(),
  plan: z.array(z.object({ step: z.string(), status: z.enum(['pending', 'inProgress', 'completed']) })),
});
const UsageBreakdownSchema = z
  .object({
    inputTokens: z.number(),
    cachedInputTokens: z.number(),
    outputTokens: z.number(),
    reasoningOutputTokens: z.number(),
  })
  .passthrough();
export const TokenUsageSchema = z.object({
  ...inTurn,
  tokenUsage: z.object({ last: UsageBreakdownSchema }).passthrough(),
});
export const TurnErrorSchema = z
  .object({ message: z.string(), additionalDetails: z.string().nullable().optional() })
  .passthrough();
export const ErrorNotificationSchema = z.object({ ...inTurn, error: TurnErrorSchema, willRetry: z.boolean() });
export const TurnSchema = z
  .object({
    id: z.string(),
    status: z.enum(['completed', 'interrupted', 'failed', 'inProgress']),
    error: TurnErrorSchema.nullable().optional(),
    startedAt: z.number().nullable().optional(),
    completedAt: z.number().nullable().optional(),
    durationMs: z.number().nullable().optional(),
  })
  .passthrough();
export type CodexTurn = z.infer<typeof TurnSchema>;
export const TurnCompletedNotificationSchema = z.object({ threadId: z.string(), turn: TurnSchema });
