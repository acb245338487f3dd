import type { z } from 'zod';
import type { ApprovalQuestion } from '../../../../lib/protocol/agents';
import type { ApprovalOutcome } from '../approvals';
import type { CodexApproval } from './codexApprovals';
import { ElicitationRequestSchema, McpToolApprovalMetaSchema } from './codexProtocol';

type ElicitationRequest = z.infer<typeof ElicitationRequestSchema>;
type ElicitationProperty = NonNullable<NonNullable<ElicitationRequest['requestedSchema']>['properties']>[string];

function elicitationQuestions(properties: Record<string, ElicitationProperty>, required: string[]): ApprovalQuestion[] {
  return Object.entries(properties).map(([id, p]) => ({
    id,
    header: p.title ?? id,
    question: p.description ?? p.title ?? id,
    options: (p.enum ?? (p.type === 'boolean' ? ['true', 'false'] : [])).map((label) => ({ label, description: null })),
    multiSelect: p.type === 'array',
    allowOther: !p.enum && p.type !== 'boolean',
    secret: false,
    required: required.includes(id),
  }));
}

/** An elicitation's answers typed as its schema says: numbers and booleans are not strings. */
function elicitationContent(
  properties: Record<string, ElicitationProperty>,
  answers: Record<string, string[]>,
): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const [id, values] of Object.entries(answers)) {
    const type = properties[id]?.type;
    const first = values[0] ?? '';
    content[id] =
      type === 'array'
        ? values
        : type === 'number' || type === 'integer'
          ? Number(first)
          : type === 'boolean'
            ? first === 'true'
            : first;
  }
  return content;
}

/** An MCP server's own form (ACC-4): its fields become questions; the answers go back to the server. */
function formApproval(request: ElicitationRequest): CodexApproval {
  const properties = request.requestedSchema?.properties ?? {};
  return {
    threadId: request.threadId,
    ask: {
      kind: 'question',
      command: request.message,
      reason: `Asked by the MCP server ${request.serverName}`,
      detail: request.url ?? null,
      questions: elicitationQuestions(properties, request.requestedSchema?.required ?? []),
    },
    respond: (o) =>
      o.decision === 'decline' || o.decision === 'cancel'
        ? { action: o.decision, content: null, _meta: null }
        : {
            action: 'accept',
            content: request.mode === 'url' ? null : elicitationContent(properties, o.answers ?? {}),
            _meta: null,
          },
  };
}

/**
 * Codex asks before a tool of an MCP server runs (ACC-4): a tool approval, not a form. "Allow for
 * this session" is Codex's `persist: session` when it offers it; never `always`, which would
 * write the grant into the user's Codex configuration.
 */
function toolCallApproval(request: ElicitationRequest, meta: z.infer<typeof McpToolApprovalMetaSchema>): CodexApproval {
  const offered = meta.persist === undefined ? [] : [meta.persist].flat();
  const tool = meta.tool_title ?? meta.tool_name ?? 'a tool';
  const respond = (o: ApprovalOutcome) => {
    if (o.decision === 'decline' || o.decision === 'cancel') return { action: o.decision, content: null, _meta: null };
    const forSession = o.decision === 'acceptForSession' && offered.includes('session');
    return { action: 'accept', content: {}, _meta: forSession ? { persist: 'session' } : null };
  };
  return {
    threadId: request.threadId,
    ask: {
      kind: 'tool',
      command: `${tool} (MCP server ${request.serverName})`,
      reason: meta.tool_description || request.message,
      detail: meta.tool_params === undefined ? null : JSON.stringify(meta.tool_params, null, 2),
    },
    respond,
  };
}

/** `mcpServer/elicitation/request`: Codex's question before an MCP tool runs, or an MCP server's form. Null when malformed. */
export function elicitationApproval(params: unknown): CodexApproval | null {
  const p = ElicitationRequestSchema.safeParse(params);
  if (!p.success) return null;
  const meta = McpToolApprovalMetaSchema.safeParse(p.data._meta);
  return meta.success ? toolCallApproval(p.data, meta.data) : formApproval(p.data);
}
