import { z } from 'zod';

/**
 * The thread items of `codex app-server` that become timeline rows (TL-1), as zod schemas checked
 * before mapping. Only the fields the rows use are listed; anything else passes through. An item
 * that fails its schema becomes a generic row, never an exception.
 */
const base = { id: z.string() };

export const AgentMessageSchema = z
  .object({ ...base, type: z.literal('agentMessage'), text: z.string() })
  .passthrough();
export const ReasoningSchema = z
  .object({
    ...base,
    type: z.literal('reasoning'),
    summary: z.array(z.string()),
    content: z.array(z.string()).optional(),
  })
  .passthrough();
export const PlanItemSchema = z.object({ ...base, type: z.literal('plan'), text: z.string() }).passthrough();

const PatchKindSchema = z.union([
  z.object({ type: z.literal('add') }).passthrough(),
  z.object({ type: z.literal('delete') }).passthrough(),
  z.object({ type: z.literal('update'), move_path: z.string().nullable().optional() }).passthrough(),
]);
export const FileUpdateChangeSchema = z
  .object({ path: z.string(), kind: PatchKindSchema, diff: z.string() })
  .passthrough();
export type FileUpdateChange = z.infer<typeof FileUpdateChangeSchema>;
const PatchStatusSchema = z.enum(['inProgress', 'completed', 'failed', 'declined']);
export const FileChangeItemSchema = z
  .object({
    ...base,
    type: z.literal('fileChange'),
    changes: z.array(FileUpdateChangeSchema),
    status: PatchStatusSchema,
  })
  .passthrough();

const ToolStatusSchema = z.enum(['inProgress', 'completed', 'failed']);
export const McpToolCallSchema = z
  .object({
    ...base,
    type: z.literal('mcpToolCall'),
    server: z.string(),
    tool: z.string(),
    status: ToolStatusSchema,
    arguments: z.unknown(),
    result: z
      .object({ content: z.array(z.unknown()), structuredContent: z.unknown().optional() })
      .passthrough()
      .nullable(),
    error: z.object({ message: z.string() }).passthrough().nullable(),
  })
  .passthrough();
export const DynamicToolCallSchema = z
  .object({
    ...base,
    type: z.literal('dynamicToolCall'),
    namespace: z.string().nullable().optional(),
    tool: z.string(),
    arguments: z.unknown(),
    status: ToolStatusSchema,
    contentItems: z.array(z.unknown()).nullable(),
    success: z.boolean().nullable(),
  })
  .passthrough();
export const FunctionCallOutputSchema = z
  .object({
    ...base,
    type: z.literal('functionCallOutput'),
    name: z.string(),
    namespace: z.string().nullable().optional(),
    output: z.unknown(),
  })
  .passthrough();
const WebSearchActionSchema = z
  .object({
    type: z.string(),
    query: z.string().nullable().optional(),
    queries: z.array(z.string()).nullable().optional(),
    url: z.string().nullable().optional(),
    pattern: z.string().nullable().optional(),
  })
  .passthrough();
export const WebSearchSchema = z
  .object({
    ...base,
    type: z.literal('webSearch'),
    query: z.string(),
    action: WebSearchActionSchema.nullable(),
    results: z.array(z.unknown()).nullable().optional(),
  })
  .passthrough();
export const ImageViewSchema = z.object({ ...base, type: z.literal('imageView'), path: z.string() }).passthrough();
export const ImageGenerationSchema = z
  .object({
    ...base,
    type: z.literal('imageGeneration'),
    status: z.string(),
    revisedPrompt: z.string().nullable(),
    savedPath: z.string().optional(),
  })
  .passthrough();
export const SleepSchema = z.object({ ...base, type: z.literal('sleep'), durationMs: z.number() }).passthrough();
export const CollabAgentToolCallSchema = z
  .object({
    ...base,
    type: z.literal('collabAgentToolCall'),
    tool: z.string(),
    status: z.enum(['inProgress', 'completed', 'failed', 'interrupted']),
    receiverThreadIds: z.array(z.string()),
    prompt: z.string().nullable(),
    model: z.string().nullable().optional(),
    agentsStates: z.record(
      z.string(),
      z.object({ status: z.unknown(), message: z.string().nullable() }).passthrough().optional(),
    ),
  })
  .passthrough();
export const SubAgentActivitySchema = z
  .object({
    ...base,
    type: z.literal('subAgentActivity'),
    kind: z.enum(['started', 'interacted', 'interrupted', 'completed']),
    agentThreadId: z.string(),
    agentPath: z.string(),
  })
  .passthrough();
export const ContextCompactionSchema = z.object({ ...base, type: z.literal('contextCompaction') }).passthrough();
export const UserMessageSchema = z
  .object({
    ...base,
    type: z.literal('userMessage'),
    clientId: z.string().nullable().optional(),
    content: z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough()),
  })
  .passthrough();
export const CommandExecutionSchema = z
  .object({
    ...base,
    type: z.literal('commandExecution'),
    command: z.string(),
    status: z.string(),
    aggregatedOutput: z.string().nullable().optional(),
  })
  .passthrough();

/** Any thread item: its type and id are all the adapter can count on. */
export const AnyItemSchema = z.object({ type: z.string(), id: z.string() }).passthrough();
export type AnyItem = z.infer<typeof AnyItemSchema>;
