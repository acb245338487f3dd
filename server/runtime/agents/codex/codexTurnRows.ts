import type { AgentItem } from '../../../../lib/protocol/rows';
import { textBody } from '../textBody';
import type { CodexTurn } from './codexNotificationSchemas';

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number | null;
  reasoningTokens: number | null;
}

/** Ids of the rows a turn has that are no Codex item: the same live and saved (TL-3). */
export const turnEndItemId = (turnId: string) => `turn:${turnId}`;
export const turnErrorItemId = (turnId: string, index = 0) =>
  index === 0 ? `error:${turnId}` : `error:${turnId}:${index}`;
export const turnPlanItemId = (turnId: string) => `plan:${turnId}`;

const seconds = (value: number | null | undefined) => (typeof value === 'number' ? value * 1000 : null);

/** The end of a Codex turn (TL-1): status, duration, token usage, the error it failed with. */
export function turnEndItem(turn: CodexTurn, usage: TurnUsage | null, parentItemId: string | null): AgentItem {
  const status = turn.status === 'inProgress' ? 'interrupted' : turn.status;
  return {
    kind: 'turnEnd',
    itemId: turnEndItemId(turn.id),
    parentItemId,
    createdAt: seconds(turn.completedAt) ?? seconds(turn.startedAt) ?? 0,
    status,
    durationMs: typeof turn.durationMs === 'number' ? Math.max(0, Math.round(turn.durationMs)) : null,
    usage,
    costUsd: null,
    error: turn.error?.message ?? null,
  };
}

/** An error Codex reported (an `error` notification, or the error a saved turn failed with). */
export function agentErrorItem(
  itemId: string,
  error: { message: string; additionalDetails?: string | null },
  createdAt: number,
  parentItemId: string | null,
): AgentItem {
  return {
    kind: 'agentError',
    itemId,
    parentItemId,
    createdAt,
    message: error.message,
    detail: error.additionalDetails ? textBody(error.additionalDetails) : null,
  };
}
