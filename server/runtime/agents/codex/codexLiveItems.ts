import type { AgentItem } from '../../../../lib/protocol/rows';
import type { AgentRunContext } from '../agent';
import { textBody } from '../textBody';
import { codexItem, subagentThreadId } from './codexItems';
import {
  CODEX_LIVE,
  ErrorNotificationSchema,
  LiveItemSchema,
  PatchUpdatedSchema,
  SummaryPartSchema,
  TextDeltaSchema,
  TokenUsageSchema,
  TurnCompletedNotificationSchema,
  TurnPlanSchema,
} from './codexNotificationSchemas';
import type { SavedPlan } from './codexTurnRecords';
import { agentErrorItem, turnEndItem, turnErrorItemId, turnPlanItemId, type TurnUsage } from './codexTurnRows';

/** Where a turn's usage and plan are kept for its saved rows. */
export interface TurnKeeper {
  usage(turnId: string, usage: TurnUsage): void;
  plan(turnId: string, plan: SavedPlan): void;
}

/** A streamed item: what arrived so far, re-sent whole on every delta (TL-1). */
interface Streaming {
  item: Record<string, unknown> & { type: string; id: string };
  parts: string[];
  createdAt: number;
}

const STREAMED_TYPES = { agentMessage: 'text', reasoning: 'summary', plan: 'text' } as const;

/**
 * One Codex turn's live rows (TL-1, TL-3): every notification of the turn's thread (and of the
 * subagent threads it spawns) goes through `notify`; each item is published with
 * `context.item` under its Codex id, streamed text whole so far. Commands are not handled here:
 * their rows come from the output path (OUT-2).
 */
export class CodexLiveItems {
  private readonly streaming = new Map<string, Streaming>();
  private readonly createdAt = new Map<string, number>();
  private readonly usage = new Map<string, TurnUsage>();
  private readonly errors = new Map<string, number>();
  /** Subagent threads this turn spawned, and the row whose timeline they fill. */
  private readonly subagents = new Map<string, string>();
  /** Per thread, the item seen last: a plan is kept with the item it was first shown after (TL-3). */
  private readonly lastItem = new Map<string, string>();
  /** Per plan row, the item it was first shown after. */
  private readonly planAfter = new Map<string, string | null>();

  constructor(
    private readonly context: Pick<AgentRunContext, 'item' | 'activity'>,
    private readonly threadId: string,
    private readonly cwd: string,
    /** Keeps what Codex's history lacks for a turn's saved rows: its usage and its plan (TL-1). */
    private readonly keep: TurnKeeper = { usage: () => undefined, plan: () => undefined },
    private readonly now: () => number = Date.now,
  ) {}

  /** True when notifications of this thread belong to this turn (its own or a subagent's). */
  follows(threadId: string): boolean {
    return threadId === this.threadId || this.subagents.has(threadId);
  }

  /** Token usage of the turn so far: the sum of each model request's usage. */
  private usageOf(turnId: string): TurnUsage | null {
    return this.usage.get(turnId) ?? null;
  }

  private parentOf(threadId: string): string | null {
    return this.subagents.get(threadId) ?? null;
  }

  private firstSeen(itemId: string, at: number | undefined): number {
    const known = this.createdAt.get(itemId);
    if (known !== undefined) return known;
    const createdAt = at ?? this.now();
    this.createdAt.set(itemId, createdAt);
    return createdAt;
  }

  private publish(raw: unknown, threadId: string, createdAt: number, running: boolean): void {
    const parentItemId = this.parentOf(threadId);
    // Whole texts: the overlay keeps them and cuts the wire rows (TL-1, TL-3).
    const item = codexItem(raw, {
      cwd: this.cwd,
      createdAt,
      parentItemId,
      running,
      subagentTimeline: parentItemId !== null,
      inlineBytes: Infinity,
    });
    if (!item) return;
    this.context.item(item);
    const subagentThread = subagentThreadId(raw);
    // The first item naming a subagent thread (its spawn) owns that thread's timeline.
    if (subagentThread && subagentThread !== this.threadId && !this.subagents.has(subagentThread))
      this.subagents.set(subagentThread, item.itemId);
  }

  /** Streamed text as the item's own field: the message text, the reasoning summary list, the plan text. */
  private publishStreaming(stream: Streaming, threadId: string): void {
    const field = STREAMED_TYPES[stream.item.type as keyof typeof STREAMED_TYPES];
    const value = field === 'summary' ? stream.parts : stream.parts.join('');
    this.publish({ ...stream.item, [field]: value }, threadId, stream.createdAt, true);
  }

  notify(method: string, params: unknown): void {
    this.context.activity();
    try {
      this.route(method, params);
    } catch (error) {
      // A mapping bug must never drop the turn: the event becomes a generic row instead (TL-1).
      this.context.item({
        kind: 'rawItem',
        itemId: `raw:${method}:${this.now()}`,
        parentItemId: null,
        createdAt: this.now(),
        label: `Codex ${method}`,
        text: textBody(`${(error as Error).message}\n${JSON.stringify(params) ?? ''}`),
      });
    }
  }

  private route(method: string, params: unknown): void {
    switch (method) {
      case CODEX_LIVE.itemStarted:
      case CODEX_LIVE.itemCompleted:
        return this.onItem(params, method === CODEX_LIVE.itemStarted);
      case CODEX_LIVE.agentMessageDelta:
      case CODEX_LIVE.planDelta:
      case CODEX_LIVE.reasoningSummaryDelta:
        return this.onDelta(params);
      case CODEX_LIVE.reasoningSummaryPartAdded: {
        const part = SummaryPartSchema.safeParse(params);
        const stream = part.success ? this.streaming.get(part.data.itemId) : undefined;
        if (stream) while (stream.parts.length <= part.data!.summaryIndex) stream.parts.push('');
        return;
      }
      case CODEX_LIVE.fileChangePatchUpdated: {
        const patch = PatchUpdatedSchema.safeParse(params);
        if (!patch.success) return;
        if (!this.createdAt.has(patch.data.itemId)) this.lastItem.set(patch.data.threadId, patch.data.itemId);
        const createdAt = this.firstSeen(patch.data.itemId, undefined);
        this.publish(
          { type: 'fileChange', id: patch.data.itemId, changes: patch.data.changes, status: 'inProgress' },
          patch.data.threadId,
          createdAt,
          true,
        );
        return;
      }
      case CODEX_LIVE.turnPlanUpdated:
        return this.onPlan(params);
      case CODEX_LIVE.tokenUsageUpdated:
        return this.onUsage(params);
      case CODEX_LIVE.error:
        return this.onError(params);
      case CODEX_LIVE.turnCompleted:
        return this.onTurnCompleted(params);
      default:
        // Everything else (status changes, rate limits, MCP start-up, diffs of the whole turn)
        // only counts as activity: each item above already carries what it shows.
        return;
    }
  }

  private onItem(params: unknown, started: boolean): void {
    const parsed = LiveItemSchema.safeParse(params);
    if (!parsed.success) {
      this.publish(params, this.threadId, this.now(), false);
      return;
    }
    const { item, threadId } = parsed.data;
    if (!this.createdAt.has(item.id)) this.lastItem.set(threadId, item.id);
    const createdAt = this.firstSeen(item.id, parsed.data.startedAtMs ?? (item.startedAtMs as number | undefined));
    if ((item.type === 'commandExecution' || item.type === 'userMessage') && threadId === this.threadId) return;
    if (started && item.type in STREAMED_TYPES) {
      const field = STREAMED_TYPES[item.type as keyof typeof STREAMED_TYPES];
      const initial = item[field];
      const parts = Array.isArray(initial) ? initial.map(String) : typeof initial === 'string' ? [initial] : [];
      this.streaming.set(item.id, { item, parts, createdAt });
    }
    if (!started) this.streaming.delete(item.id);
    this.publish(item, threadId, createdAt, started);
  }

  private onDelta(params: unknown): void {
    const delta = TextDeltaSchema.safeParse(params);
    if (!delta.success) return;
    const stream = this.streaming.get(delta.data.itemId);
    if (!stream) return;
    const index = stream.item.type === 'reasoning' ? (delta.data.summaryIndex ?? 0) : 0;
    while (stream.parts.length <= index) stream.parts.push('');
    stream.parts[index] += delta.data.delta;
    this.publishStreaming(stream, delta.data.threadId);
  }

  private onPlan(params: unknown): void {
    const plan = TurnPlanSchema.safeParse(params);
    if (!plan.success) return;
    const itemId = turnPlanItemId(plan.data.turnId);
    if (!this.planAfter.has(itemId)) this.planAfter.set(itemId, this.lastItem.get(plan.data.threadId) ?? null);
    const item: AgentItem = {
      kind: 'plan',
      itemId,
      parentItemId: this.parentOf(plan.data.threadId),
      createdAt: this.firstSeen(itemId, undefined),
      explanation: plan.data.explanation,
      entries: plan.data.plan.map((step) => ({ text: step.step, status: step.status })),
    };
    this.context.item(item);
    this.keep.plan(plan.data.turnId, {
      explanation: item.explanation,
      entries: item.entries,
      createdAt: item.createdAt,
      after: this.planAfter.get(itemId) ?? null,
    });
  }

  private onUsage(params: unknown): void {
    const usage = TokenUsageSchema.safeParse(params);
    if (!usage.success) return;
    const last = usage.data.tokenUsage.last;
    const sum = this.usage.get(usage.data.turnId) ?? {
      inputTokens: 0,
      outputTokens: 0,
      cachedInputTokens: 0,
      reasoningTokens: 0,
    };
    this.usage.set(usage.data.turnId, {
      inputTokens: sum.inputTokens + last.inputTokens,
      outputTokens: sum.outputTokens + last.outputTokens,
      cachedInputTokens: (sum.cachedInputTokens ?? 0) + last.cachedInputTokens,
      reasoningTokens: (sum.reasoningTokens ?? 0) + last.reasoningOutputTokens,
    });
  }

  private onError(params: unknown): void {
    const error = ErrorNotificationSchema.safeParse(params);
    if (!error.success) return;
    const index = this.errors.get(error.data.turnId) ?? 0;
    this.errors.set(error.data.turnId, index + 1);
    const itemId = turnErrorItemId(error.data.turnId, index);
    this.context.item(
      agentErrorItem(itemId, error.data.error, this.firstSeen(itemId, undefined), this.parentOf(error.data.threadId)),
    );
  }

  private onTurnCompleted(params: unknown): void {
    const completed = TurnCompletedNotificationSchema.safeParse(params);
    if (!completed.success) return;
    const { turn, threadId } = completed.data;
    const usage = this.usageOf(turn.id);
    if (usage) this.keep.usage(turn.id, usage);
    this.context.item(turnEndItem(turn, usage, this.parentOf(threadId)));
  }
}
