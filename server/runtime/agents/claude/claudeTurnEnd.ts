import { z } from 'zod';
import type { AgentItem } from '../../../../lib/protocol/rows';

const ResultSchema = z
  .object({
    subtype: z.string(),
    is_error: z.boolean().optional(),
    duration_ms: z.number().optional(),
    total_cost_usd: z.number().optional(),
    result: z.string().optional(),
    errors: z.array(z.string()).optional(),
    usage: z
      .object({
        input_tokens: z.number().optional(),
        output_tokens: z.number().optional(),
        cache_read_input_tokens: z.number().nullable().optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();

function clip(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/**
 * The turn-end row of a live Claude turn from the SDK's `result` message (TL-1): status,
 * duration, token usage and cost, and the error of a failed turn. Null when the message is not
 * one this version can read.
 */
export function turnEndItem(message: unknown, itemId: string, now: number): AgentItem | null {
  const result = ResultSchema.safeParse(message);
  if (!result.success) return null;
  const r = result.data;
  const failed = r.is_error === true || r.subtype !== 'success';
  const error = failed
    ? r.errors?.join('\n') || r.result || `Claude ended the turn with an error (${r.subtype}).`
    : null;
  const usage = r.usage
    ? {
        inputTokens: clip(r.usage.input_tokens),
        outputTokens: clip(r.usage.output_tokens),
        cachedInputTokens: clip(r.usage.cache_read_input_tokens),
        reasoningTokens: null,
      }
    : null;
  return {
    kind: 'turnEnd',
    itemId,
    parentItemId: null,
    createdAt: now,
    status: failed ? 'failed' : 'completed',
    durationMs: typeof r.duration_ms === 'number' ? clip(r.duration_ms) : null,
    usage,
    costUsd: typeof r.total_cost_usd === 'number' && r.total_cost_usd >= 0 ? r.total_cost_usd : null,
    error,
  };
}

/**
 * The turn end of a turn the user stopped (ACC-6): Claude Code ends it with an error result and
 * its own diagnostics, but the turn was interrupted, not failed (TL-7).
 */
export function interruptedTurnEnd(item: AgentItem): AgentItem {
  return item.kind === 'turnEnd' ? { ...item, status: 'interrupted', error: null } : item;
}
