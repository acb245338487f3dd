import type { z } from 'zod';
import type { AgentItem, ItemStatus } from '../../../../lib/protocol/rows';
import { textBody } from '../textBody';
import { decodeToolOutput } from '../toolOutputEnvelope';
import { codexFileChange } from './codexFileChanges';
import {
  AgentMessageSchema,
  AnyItemSchema,
  CommandExecutionSchema,
  UserMessageSchema,
  CollabAgentToolCallSchema,
  ContextCompactionSchema,
  DynamicToolCallSchema,
  FileChangeItemSchema,
  FunctionCallOutputSchema,
  ImageGenerationSchema,
  ImageViewSchema,
  McpToolCallSchema,
  PlanItemSchema,
  ReasoningSchema,
  SleepSchema,
  SubAgentActivitySchema,
  WebSearchSchema,
} from './codexItemSchemas';

/** Where and when an item is mapped. */
export interface ItemMapping {
  cwd: string;
  createdAt: number;
  /** The timeline it belongs to: null, or the subagent row's itemId. */
  parentItemId: string | null;
  /** True while Codex has started the item and not completed it (live only). */
  running: boolean;
  /** How much of each long text goes inline; readItemText maps with no limit. */
  inlineBytes?: number;
  /**
   * Inside a subagent's timeline the runtime keeps no rows of its own: the prompt shows as a
   * user text and commands as tool calls.
   */
  subagentTimeline?: boolean;
}

/** Items that are not agent item rows: the runtime keeps user messages and commands itself. */
export const ITEMS_WITH_OWN_ROWS = new Set(['userMessage', 'commandExecution']);

type Base = { itemId: string; parentItemId: string | null; createdAt: number };
type Mapper = (item: never, base: Base, mapping: ItemMapping) => AgentItem;

function toolStatus(status: string, running: boolean): ItemStatus {
  if (status === 'inProgress') return running ? 'running' : 'cancelled';
  if (status === 'declined' || status === 'interrupted') return status === 'declined' ? 'declined' : 'cancelled';
  return status === 'failed' ? 'failed' : 'completed';
}

function json(value: unknown): string {
  return value === undefined || value === null
    ? ''
    : typeof value === 'string'
      ? value
      : JSON.stringify(value, null, 2);
}

function webSearchTitle(item: z.infer<typeof WebSearchSchema>): string {
  const action = item.action;
  if (action?.type === 'openPage') return `Open ${action.url ?? ''}`.trim();
  if (action?.type === 'findInPage') return `Find "${action.pattern ?? ''}" in ${action.url ?? 'page'}`;
  const query = action?.query ?? action?.queries?.join(', ') ?? item.query;
  return `Search "${query}"`;
}

const MAPPERS: Record<string, { schema: z.ZodTypeAny; map: Mapper }> = {
  agentMessage: {
    schema: AgentMessageSchema,
    map: (item: z.infer<typeof AgentMessageSchema>, base, m) => ({
      ...base,
      kind: 'agentText',
      text: item.text,
      streaming: m.running,
    }),
  },
  reasoning: {
    schema: ReasoningSchema,
    map: (item: z.infer<typeof ReasoningSchema>, base, m) => ({
      ...base,
      kind: 'reasoning',
      text: item.summary.join('\n\n'),
      streaming: m.running,
    }),
  },
  plan: {
    schema: PlanItemSchema,
    // A proposed plan is Markdown of its own: shown as the plan's text, with no step list.
    map: (item: z.infer<typeof PlanItemSchema>, base) => ({
      ...base,
      kind: 'plan',
      explanation: item.text,
      entries: [],
    }),
  },
  fileChange: {
    schema: FileChangeItemSchema,
    map: (item: z.infer<typeof FileChangeItemSchema>, base, m) => ({
      ...base,
      kind: 'fileChange',
      status: toolStatus(item.status, m.running),
      files: item.changes.map((change) => codexFileChange(change, m.cwd, m.inlineBytes)),
    }),
  },
  mcpToolCall: {
    schema: McpToolCallSchema,
    map: (item: z.infer<typeof McpToolCallSchema>, base, m) => ({
      ...base,
      kind: 'toolCall',
      tool: `mcp:${item.server}/${item.tool}`,
      title: `${item.server}: ${item.tool}`,
      input: textBody(json(item.arguments), m.inlineBytes),
      status: toolStatus(item.status, m.running),
      result: item.result ? textBody(decodeToolOutput(item.result).text, m.inlineBytes) : null,
      error: item.error?.message ?? null,
    }),
  },
  dynamicToolCall: {
    schema: DynamicToolCallSchema,
    map: (item: z.infer<typeof DynamicToolCallSchema>, base, m) => ({
      ...base,
      kind: 'toolCall',
      tool: item.namespace ? `${item.namespace}/${item.tool}` : item.tool,
      title: item.tool,
      input: textBody(json(item.arguments), m.inlineBytes),
      status: toolStatus(item.status, m.running),
      result: item.contentItems ? textBody(decodeToolOutput(item.contentItems).text, m.inlineBytes) : null,
      error: item.success === false ? 'The tool reported a failure.' : null,
    }),
  },
  functionCallOutput: {
    schema: FunctionCallOutputSchema,
    map: (item: z.infer<typeof FunctionCallOutputSchema>, base, m) => ({
      ...base,
      kind: 'toolCall',
      tool: item.namespace ? `${item.namespace}/${item.name}` : item.name,
      title: item.name,
      input: textBody('', m.inlineBytes),
      status: 'completed',
      result: textBody(decodeToolOutput(item.output).text, m.inlineBytes),
      error: null,
    }),
  },
  webSearch: {
    schema: WebSearchSchema,
    map: (item: z.infer<typeof WebSearchSchema>, base, m) => ({
      ...base,
      kind: 'toolCall',
      tool: 'webSearch',
      title: webSearchTitle(item),
      input: textBody(json(item.action ?? { query: item.query }), m.inlineBytes),
      status: m.running ? 'running' : 'completed',
      result: item.results ? textBody(decodeToolOutput(item.results).text, m.inlineBytes) : null,
      error: null,
    }),
  },
  imageView: {
    schema: ImageViewSchema,
    map: (item: z.infer<typeof ImageViewSchema>, base, m) => ({
      ...base,
      kind: 'toolCall',
      tool: 'imageView',
      title: `View ${item.path}`,
      input: textBody(item.path, m.inlineBytes),
      status: m.running ? 'running' : 'completed',
      result: null,
      error: null,
    }),
  },
  imageGeneration: {
    schema: ImageGenerationSchema,
    map: (item: z.infer<typeof ImageGenerationSchema>, base, m) => ({
      ...base,
      kind: 'toolCall',
      tool: 'imageGeneration',
      title: item.revisedPrompt ? `Image: ${item.revisedPrompt}` : 'Image',
      input: textBody(item.revisedPrompt ?? '', m.inlineBytes),
      status: m.running ? 'running' : item.status === 'failed' ? 'failed' : 'completed',
      result: item.savedPath ? textBody(item.savedPath, m.inlineBytes) : null,
      error: null,
    }),
  },
  sleep: {
    schema: SleepSchema,
    map: (item: z.infer<typeof SleepSchema>, base, m) => ({
      ...base,
      kind: 'toolCall',
      tool: 'sleep',
      title: `Wait ${Math.round(item.durationMs / 1000)} s`,
      input: textBody(String(item.durationMs), m.inlineBytes),
      status: m.running ? 'running' : 'completed',
      result: null,
      error: null,
    }),
  },
  collabAgentToolCall: {
    schema: CollabAgentToolCallSchema,
    map: (item: z.infer<typeof CollabAgentToolCallSchema>, base, m) => {
      const messages = Object.values(item.agentsStates).flatMap((state) => (state?.message ? [state.message] : []));
      const result = messages.length > 0 ? textBody(messages.join('\n\n'), m.inlineBytes) : null;
      const status = toolStatus(item.status, m.running);
      // The spawn opens the subagent's timeline; waiting for it, messaging or closing it are calls about it.
      if (item.tool === 'spawnAgent')
        return {
          ...base,
          kind: 'subagent',
          title: item.prompt ?? 'Subagent',
          agentType: item.model ?? null,
          status,
          result,
        };
      return {
        ...base,
        kind: 'toolCall',
        tool: `collab:${item.tool}`,
        title: item.prompt ? `${item.tool}: ${item.prompt}` : item.tool,
        input: textBody(json({ receiverThreadIds: item.receiverThreadIds, prompt: item.prompt }), m.inlineBytes),
        status,
        result,
        error: null,
      };
    },
  },
  subAgentActivity: {
    schema: SubAgentActivitySchema,
    map: (item: z.infer<typeof SubAgentActivitySchema>, base) => ({
      ...base,
      kind: 'subagent',
      title: `${item.agentPath} ${item.kind}`,
      agentType: null,
      status:
        item.kind === 'started' || item.kind === 'interacted'
          ? 'running'
          : item.kind === 'interrupted'
            ? 'cancelled'
            : 'completed',
      result: null,
    }),
  },
  contextCompaction: {
    schema: ContextCompactionSchema,
    map: (_item: z.infer<typeof ContextCompactionSchema>, base) => ({ ...base, kind: 'compaction', text: null }),
  },
};

/** A thread item this version cannot show as its own kind: the raw JSON, paged (TL-1). */
export function rawItem(raw: unknown, base: Base, label: string, inlineBytes?: number): AgentItem {
  const text = typeof raw === 'string' ? raw : (JSON.stringify(raw, null, 2) ?? String(raw));
  return { ...base, kind: 'rawItem', label, text: textBody(text, inlineBytes) };
}

function userText(raw: unknown, base: Base, mapping: ItemMapping): AgentItem {
  const parsed = UserMessageSchema.safeParse(raw);
  if (!parsed.success) return rawItem(raw, base, 'Codex userMessage', mapping.inlineBytes);
  return { ...base, kind: 'userText', text: userMessageText(parsed.data) };
}

/** The text parts of a user message, one after the other. */
export function userMessageText(message: z.infer<typeof UserMessageSchema>): string {
  return message.content.flatMap((part) => (part.type === 'text' && part.text ? [part.text] : [])).join('\n');
}

function commandAsTool(raw: unknown, base: Base, mapping: ItemMapping): AgentItem {
  const parsed = CommandExecutionSchema.safeParse(raw);
  if (!parsed.success) return rawItem(raw, base, 'Codex commandExecution', mapping.inlineBytes);
  const { command, status, aggregatedOutput } = parsed.data;
  return {
    ...base,
    kind: 'toolCall',
    tool: 'shell',
    title: command,
    input: textBody(command, mapping.inlineBytes),
    status: toolStatus(status, mapping.running),
    result:
      aggregatedOutput === null || aggregatedOutput === undefined
        ? null
        : textBody(aggregatedOutput, mapping.inlineBytes),
    error: null,
  };
}

/** The thread the subagent of a collab or activity item runs in (its own timeline), if any. */
export function subagentThreadId(raw: unknown): string | null {
  const collab = CollabAgentToolCallSchema.safeParse(raw);
  if (collab.success) return collab.data.receiverThreadIds[0] ?? null;
  const activity = SubAgentActivitySchema.safeParse(raw);
  return activity.success ? activity.data.agentThreadId : null;
}

/**
 * One Codex thread item as an agent item row (TL-1), or null for the items whose rows the
 * runtime keeps itself (user messages, commands). Unknown types and items that fail their
 * schema become a `rawItem` with the item's JSON: a version mismatch shows, never crashes.
 */
export function codexItem(raw: unknown, mapping: ItemMapping): AgentItem | null {
  const head = AnyItemSchema.safeParse(raw);
  const base: Base = {
    itemId: head.success ? head.data.id : `raw:${mapping.createdAt}`,
    parentItemId: mapping.parentItemId,
    createdAt: mapping.createdAt,
  };
  if (!head.success) return rawItem(raw, base, 'Codex event', mapping.inlineBytes);
  if (mapping.subagentTimeline && head.data.type === 'commandExecution') return commandAsTool(raw, base, mapping);
  if (mapping.subagentTimeline && head.data.type === 'userMessage') return userText(raw, base, mapping);
  if (ITEMS_WITH_OWN_ROWS.has(head.data.type)) return null;
  const mapper = MAPPERS[head.data.type];
  if (!mapper) return rawItem(raw, base, `Codex ${head.data.type}`, mapping.inlineBytes);
  const parsed = mapper.schema.safeParse(raw);
  if (!parsed.success) return rawItem(raw, base, `Codex ${head.data.type}`, mapping.inlineBytes);
  return mapper.map(parsed.data as never, base, mapping);
}
