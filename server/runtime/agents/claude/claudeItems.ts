import crypto from 'node:crypto';
import { z } from 'zod';
import type { AgentItem } from '../../../../lib/protocol/rows';
import { wholeTextBody } from '../itemTextBody';
import {
  asyncLaunchAgentId,
  isFillerAnswer,
  isInterruptMarker,
  taskNotifications,
  taskStatusOf,
  type TaskNotification,
} from './claudeInternalText';
import { SUBAGENT_TOOLS, toolItem, type ClaudeToolCall } from './claudeToolItems';
import { turnEndItem } from './claudeTurnEnd';
import { toolResultText } from './toolResultText';

/** What one Claude SDK message becomes (TL-1). */
export type ClaudeMapped =
  | { kind: 'item'; item: AgentItem }
  /** A user message of the session's own timeline; the uuid is what the app sent it with. */
  | { kind: 'user'; itemId: string; text: string; createdAt: number }
  /** A Bash call of the session's own timeline: a command row, its output read through the agent (OUT-7). */
  | { kind: 'command'; itemId: string; command: string; createdAt: number }
  | {
      kind: 'commandResult';
      itemId: string;
      turnId: string;
      command: string;
      content: unknown;
      isError: boolean;
      denied: boolean;
    };

const MessageSchema = z
  .object({
    type: z.string(),
    subtype: z.string().optional(),
    uuid: z.string().optional(),
    parent_tool_use_id: z.string().nullable().optional(),
    timestamp: z.string().optional(),
    /** An API message for user and assistant messages; a plain string in some system messages. */
    message: z.unknown().optional(),
    tool_use_result: z.unknown().optional(),
    error: z.unknown().optional(),
    is_api_error_message: z.boolean().optional(),
  })
  .passthrough();
type SdkMessage = z.infer<typeof MessageSchema>;

const ApiMessageSchema = z
  .object({
    id: z.string().optional(),
    model: z.string().optional(),
    content: z.union([z.string(), z.array(z.unknown())]).optional(),
  })
  .passthrough();
type ApiMessage = z.infer<typeof ApiMessageSchema>;

function apiMessageOf(message: SdkMessage): ApiMessage | undefined {
  const parsed = ApiMessageSchema.safeParse(message.message);
  return parsed.success ? parsed.data : undefined;
}

const TextBlock = z.object({ type: z.literal('text'), text: z.string() });
const ThinkingBlock = z.object({ type: z.literal('thinking'), thinking: z.string() });
const ToolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});
const ToolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.unknown().optional(),
  is_error: z.boolean().optional(),
});

const StreamEventSchema = z.object({
  type: z.string(),
  index: z.number().int().optional(),
  message: z.object({ id: z.string() }).passthrough().optional(),
  content_block: z.object({ type: z.string() }).passthrough().optional(),
  delta: z
    .object({ type: z.string(), text: z.string().optional(), thinking: z.string().optional() })
    .passthrough()
    .optional(),
});

/** Top-level SDK message kinds that carry nothing for the timeline (status, progress, hooks…). */
const SILENT_TYPES = new Set([
  'command_lifecycle',
  'rate_limit_event',
  'tool_progress',
  'tool_use_summary',
  'auth_status',
  'prompt_suggestion',
  'memory_recall',
  'files_persisted',
  'elicitation_complete',
  'streamlined_text',
  'streamlined_tool_use_summary',
]);

export interface ClaudeItemMapperOptions {
  /** `live`: messages of a running query; `saved`: getSessionMessages (no results, no stream). */
  source: 'live' | 'saved';
  /** The subagent's tool id when these are a subagent's saved messages (they carry it, but say so anyway). */
  parentItemId?: string | null;
  /** Our user message uuid of a live turn: the turn-end row is keyed by it. */
  turnId?: string;
  now?: () => number;
}

interface StreamBlock {
  kind: 'agentText' | 'reasoning';
  text: string;
  createdAt: number;
}

/**
 * Maps Claude Agent SDK messages to timeline items (TL-1), the same way for a live query and for
 * saved history so both give the same item ids: a text or thinking block is
 * `<API message id>:<block index>`, a tool call its tool_use id, a user message its uuid. Keeps
 * the tool calls it saw so a tool_result completes its call in place.
 */
export class ClaudeItemMapper {
  private readonly tools = new Map<string, ClaudeToolCall>();
  private readonly denied = new Set<string>();
  /** Async subagents by the id Claude Code gave them, to their Agent tool call. */
  private readonly asyncAgents = new Map<string, string>();
  /** The last text each subagent wrote, by its Agent tool call: its report when it ends in the background (TL-8). */
  private readonly subagentTexts = new Map<string, string>();
  private readonly blockCounts = new Map<string, number>();
  private readonly streams = new Map<string, StreamBlock>();
  private readonly currentStream = new Map<string, string>();
  private readonly now: () => number;

  constructor(private readonly options: ClaudeItemMapperOptions) {
    this.now = options.now ?? Date.now;
  }

  map(raw: unknown): ClaudeMapped[] {
    const parsed = MessageSchema.safeParse(raw);
    if (!parsed.success) return [this.rawItem(raw, 'Unreadable Claude event', null)];
    const message = parsed.data;
    switch (message.type) {
      case 'assistant':
        return this.assistant(message);
      case 'user':
        return this.user(message);
      case 'stream_event':
        return this.streamEvent(message);
      case 'result':
        return this.result(message);
      case 'system':
        return this.system(message);
      default:
        return SILENT_TYPES.has(message.type)
          ? []
          : [this.rawItem(raw, `Claude ${message.type} event`, this.parentOf(message))];
    }
  }

  private parentOf(message: SdkMessage): string | null {
    return message.parent_tool_use_id ?? this.options.parentItemId ?? null;
  }

  private createdAt(message: SdkMessage): number {
    const parsed = message.timestamp ? Date.parse(message.timestamp) : NaN;
    return Number.isFinite(parsed) ? parsed : this.now();
  }

  private rawItem(raw: unknown, label: string, parentItemId: string | null, itemId?: string): ClaudeMapped {
    let text: string;
    try {
      text = JSON.stringify(raw) ?? String(raw);
    } catch {
      text = String(raw);
    }
    const id =
      itemId ??
      (typeof (raw as { uuid?: unknown })?.uuid === 'string'
        ? (raw as { uuid: string }).uuid
        : `raw:${crypto.createHash('sha256').update(text).digest('hex').slice(0, 24)}`);
    return {
      kind: 'item',
      item: { kind: 'rawItem', itemId: id, parentItemId, createdAt: this.now(), label, text: wholeTextBody(text) },
    };
  }

  private assistant(message: SdkMessage): ClaudeMapped[] {
    const api = apiMessageOf(message);
    const content = api?.content;
    const blocks = Array.isArray(content)
      ? content
      : typeof content === 'string'
        ? [{ type: 'text', text: content }]
        : [];
    const apiId = api?.id ?? message.uuid ?? 'message';
    const parentItemId = this.parentOf(message);
    const isError = message.error !== undefined || message.is_api_error_message === true;
    const out: ClaudeMapped[] = [];
    for (const block of blocks) {
      const index = this.blockCounts.get(apiId) ?? 0;
      this.blockCounts.set(apiId, index + 1);
      const itemId = `${apiId}:${index}`;
      const streamed = this.streams.get(itemId);
      const createdAt = streamed?.createdAt ?? this.createdAt(message);
      const base = { itemId, parentItemId, createdAt };
      const text = TextBlock.safeParse(block);
      if (text.success) {
        // TL-8: a stopped turn's filler answer is for the model; the turn's interrupted end says it.
        if (isFillerAnswer(api?.model, text.data.text)) continue;
        const apiError = isError || (api?.model === '<synthetic>' && text.data.text.startsWith('API Error'));
        if (!apiError && parentItemId !== null && this.tools.has(parentItemId))
          this.subagentTexts.set(parentItemId, text.data.text);
        out.push({
          kind: 'item',
          item: apiError
            ? { ...base, kind: 'agentError', message: text.data.text, detail: null }
            : { ...base, kind: 'agentText', text: text.data.text, streaming: false },
        });
        continue;
      }
      const thinking = ThinkingBlock.safeParse(block);
      if (thinking.success) {
        out.push({
          kind: 'item',
          item: { ...base, kind: 'reasoning', text: thinking.data.thinking, streaming: false },
        });
        continue;
      }
      const toolUse = ToolUseBlock.safeParse(block);
      if (toolUse.success) {
        const call: ClaudeToolCall = {
          id: toolUse.data.id,
          name: toolUse.data.name,
          input: toolUse.data.input,
          parentItemId,
          createdAt,
        };
        this.tools.set(call.id, call);
        if (call.name === 'Bash' && parentItemId === null)
          out.push({ kind: 'command', itemId: call.id, command: String(call.input.command ?? ''), createdAt });
        else out.push({ kind: 'item', item: toolItem(call, null) });
        continue;
      }
      const type = (block as { type?: unknown })?.type;
      out.push(
        this.rawItem(block, `Claude ${typeof type === 'string' ? type : 'unknown'} block`, parentItemId, itemId),
      );
    }
    return out;
  }

  private user(message: SdkMessage): ClaudeMapped[] {
    const content = apiMessageOf(message)?.content;
    const parentItemId = this.parentOf(message);
    const blocks = Array.isArray(content) ? content : [];
    const results = blocks
      .map((b) => ToolResultBlock.safeParse(b))
      .filter((r) => r.success)
      .map((r) => r.data);
    if (results.length === 0) {
      const whole = typeof content === 'string' ? content : toolResultText(content);
      // Text for the model only (TL-8): a Stop's marker shows as the turn's end; a subagent's report as its row.
      if (isInterruptMarker(whole)) return [];
      const notified = taskNotifications(whole);
      const reports = notified ? this.subagentReports(notified.notifications) : [];
      const text = notified ? notified.rest : whole;
      if (text === '') return reports;
      const itemId = message.uuid ?? `user:${crypto.createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      const createdAt = this.createdAt(message);
      if (parentItemId === null) return [...reports, { kind: 'user', itemId, text, createdAt }];
      return [...reports, { kind: 'item', item: { kind: 'userText', itemId, parentItemId, createdAt, text } }];
    }
    const out: ClaudeMapped[] = [];
    for (const result of results) {
      const call = this.tools.get(result.tool_use_id);
      const isError = result.is_error ?? false;
      if (!call) {
        out.push(this.rawItem(result, 'Claude tool result without its call', parentItemId, result.tool_use_id));
        continue;
      }
      if (call.name === 'Bash' && call.parentItemId === null) {
        out.push({
          kind: 'commandResult',
          itemId: call.id,
          turnId: message.uuid ?? '',
          command: String(call.input.command ?? ''),
          content: result.content,
          isError,
          denied: this.denied.has(call.id),
        });
        continue;
      }
      // An async subagent's launch result is metadata: the subagent runs on until its notification (TL-8).
      const launched =
        SUBAGENT_TOOLS.has(call.name) && !isError ? asyncLaunchAgentId(toolResultText(result.content)) : null;
      if (launched !== null) {
        this.asyncAgents.set(launched, call.id);
        out.push({ kind: 'item', item: toolItem(call, null) });
        continue;
      }
      const toolUseResult = results.length === 1 ? message.tool_use_result : undefined;
      out.push({
        kind: 'item',
        item: toolItem(call, { content: result.content, isError, toolUseResult, denied: this.denied.has(call.id) }),
      });
    }
    return out;
  }

  /** Each notified subagent's row, with the state and report the notification brings; one of a subagent not seen here shows nothing. */
  private subagentReports(notifications: readonly TaskNotification[]): ClaudeMapped[] {
    const out: ClaudeMapped[] = [];
    for (const notification of notifications) {
      const callId = this.asyncAgents.get(notification.taskId);
      const call = callId === undefined ? undefined : this.tools.get(callId);
      if (!call) continue;
      const item = toolItem(call, {
        content: notification.result,
        isError: notification.status === 'failed',
        toolUseResult: undefined,
        denied: false,
      });
      out.push({ kind: 'item', item: item.kind === 'subagent' ? { ...item, status: notification.status } : item });
    }
    return out;
  }

  /** Partial assistant messages (live only): text and thinking grow in place, whole text so far each time. */
  private streamEvent(message: SdkMessage): ClaudeMapped[] {
    const event = StreamEventSchema.safeParse((message as { event?: unknown }).event);
    if (!event.success) return [];
    const scope = message.parent_tool_use_id ?? '';
    const { type, index } = event.data;
    if (type === 'message_start' && event.data.message) {
      this.currentStream.set(scope, event.data.message.id);
      return [];
    }
    const apiId = this.currentStream.get(scope);
    if (apiId === undefined || index === undefined) return [];
    const itemId = `${apiId}:${index}`;
    if (type === 'content_block_start') {
      const blockType = event.data.content_block?.type;
      if (blockType === 'text' || blockType === 'thinking')
        this.streams.set(itemId, {
          kind: blockType === 'text' ? 'agentText' : 'reasoning',
          text: '',
          createdAt: this.now(),
        });
      return [];
    }
    const stream = this.streams.get(itemId);
    const delta = event.data.delta;
    if (type !== 'content_block_delta' || !stream || !delta) return [];
    const piece = stream.kind === 'agentText' ? delta.text : delta.thinking;
    if (piece === undefined || piece === '') return [];
    stream.text += piece;
    return [
      {
        kind: 'item',
        item: {
          kind: stream.kind,
          itemId,
          parentItemId: message.parent_tool_use_id ?? null,
          createdAt: stream.createdAt,
          text: stream.text,
          streaming: true,
        },
      },
    ];
  }

  /** The end of a live turn (TL-1); the saved history keeps no such record. */
  private result(message: SdkMessage): ClaudeMapped[] {
    const item = turnEndItem(message, `turn:${this.options.turnId ?? message.uuid ?? 'end'}`, this.now());
    return [item ? { kind: 'item', item } : this.rawItem(message, 'Claude result event', null)];
  }

  private system(message: SdkMessage): ClaudeMapped[] {
    const raw = message as Record<string, unknown>;
    const inner =
      typeof raw.message === 'object' && raw.message !== null ? (raw.message as Record<string, unknown>) : {};
    const subtype = message.subtype ?? (typeof inner.subtype === 'string' ? inner.subtype : undefined);
    if (subtype === 'compact_boundary') {
      const meta = (raw.compact_metadata ?? inner.compact_metadata ?? inner.compactMetadata) as
        { trigger?: unknown; pre_tokens?: unknown; preTokens?: unknown } | undefined;
      const tokens = meta?.pre_tokens ?? meta?.preTokens;
      const text = meta
        ? `Context compacted (${String(meta.trigger ?? 'auto')}${typeof tokens === 'number' ? `, ${tokens} tokens before` : ''})`
        : null;
      return [
        {
          kind: 'item',
          item: {
            kind: 'compaction',
            itemId: message.uuid ?? `compaction:${this.now()}`,
            parentItemId: this.parentOf(message),
            createdAt: this.createdAt(message),
            text,
          },
        },
      ];
    }
    if (subtype === 'permission_denied') return this.permissionDenied(raw);
    if (subtype === 'task_notification') return this.taskEnded(raw);
    // Saved system messages are informational notices Claude kept; live ones are status and progress.
    return this.options.source === 'saved' ? [this.rawItem(raw, 'Claude system message', this.parentOf(message))] : [];
  }

  /**
   * Live, Claude Code tells of a background subagent's end as a `task_notification` event, not as
   * the `<task-notification>` message the saved conversation keeps (TL-8): its row takes the state
   * and, as its report, the subagent's last text (the notification itself carries only a summary).
   * Another task's notification (a background shell) or one of a call not seen here shows nothing.
   */
  private taskEnded(raw: Record<string, unknown>): ClaudeMapped[] {
    const toolUseId = typeof raw.tool_use_id === 'string' ? raw.tool_use_id : null;
    const call = toolUseId === null ? undefined : this.tools.get(toolUseId);
    if (!call || !SUBAGENT_TOOLS.has(call.name)) return [];
    const status = taskStatusOf(typeof raw.status === 'string' ? raw.status : null);
    const report = this.subagentTexts.get(call.id) ?? (typeof raw.summary === 'string' ? raw.summary : '');
    const item = toolItem(call, {
      content: report,
      isError: status === 'failed',
      toolUseResult: undefined,
      denied: false,
    });
    return [{ kind: 'item', item: item.kind === 'subagent' ? { ...item, status } : item }];
  }

  /** A call the permission mode refused (TL-5): the row says which tool and why, never a silent denial. */
  private permissionDenied(raw: Record<string, unknown>): ClaudeMapped[] {
    const toolUseId = typeof raw.tool_use_id === 'string' ? raw.tool_use_id : null;
    if (!toolUseId) return [];
    this.denied.add(toolUseId);
    const call = this.tools.get(toolUseId);
    if (!call || (call.name === 'Bash' && call.parentItemId === null)) return [];
    const reason =
      typeof raw.message === 'string'
        ? raw.message
        : typeof raw.decision_reason === 'string'
          ? raw.decision_reason
          : `${call.name} was refused by the permission mode.`;
    return [
      {
        kind: 'item',
        item: toolItem(call, { content: reason, isError: true, toolUseResult: undefined, denied: true }),
      },
    ];
  }
}
