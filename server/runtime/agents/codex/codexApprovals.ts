import type { ApprovalAsk, ApprovalQuestion } from '../../../../lib/protocol/agents';
import type { ApprovalOutcome } from '../approvals';
import { ApprovalRequestSchema, CODEX, ElicitationRequestSchema, PermissionsRequestSchema, UserInputRequestSchema } from './codexProtocol';

/** One Codex server request as an approval the app shows, and how its answer goes back to Codex. */
export interface CodexApproval {
  threadId: string;
  ask: Pick<ApprovalAsk, 'command' | 'reason'> & Partial<ApprovalAsk>;
  respond(outcome: ApprovalOutcome): unknown;
}

/** The diff text of a file change Codex announced, by item id, for its approval card. */
export type FileChanges = (threadId: string, itemId: string) => { paths: string[]; diff: string } | undefined;

/** Codex's answer for a command or a file change: its decisions have our names. */
const decisionOf = (outcome: ApprovalOutcome) => ({ decision: outcome.decision });

function elicitationQuestions(properties: Record<string, { type?: string; title?: string; description?: string; enum?: string[] }>): ApprovalQuestion[] {
  return Object.entries(properties).map(([id, p]) => ({
    id,
    header: p.title ?? id,
    question: p.description ?? p.title ?? id,
    options: (p.enum ?? (p.type === 'boolean' ? ['true', 'false'] : [])).map((label) => ({ label, description: null })),
    multiSelect: p.type === 'array',
    allowOther: !p.enum && p.type !== 'boolean',
    secret: false,
  }));
}

/** An elicitation's answers typed as its schema says: numbers and booleans are not strings. */
function elicitationContent(properties: Record<string, { type?: string }>, answers: Record<string, string[]>): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const [id, values] of Object.entries(answers)) {
    const type = properties[id]?.type;
    const first = values[0] ?? '';
    content[id] = type === 'array' ? values : type === 'number' || type === 'integer' ? Number(first) : type === 'boolean' ? first === 'true' : first;
  }
  return content;
}

/**
 * Maps the approval kinds Codex asks for (ACC-4): a command, a file change (with its diff), more
 * permissions, questions to the user (request_user_input) and an MCP server's form (elicitation).
 * Null for a request that is none of these.
 */
export function codexApproval(method: string, params: unknown, fileChanges: FileChanges): CodexApproval | null {
  if (method === CODEX.commandApproval) {
    const p = ApprovalRequestSchema.safeParse(params);
    if (!p.success) return null;
    return { threadId: p.data.threadId, ask: { kind: 'command', command: p.data.command ?? '', reason: p.data.reason ?? null, detail: p.data.cwd ? `in ${p.data.cwd}` : null }, respond: decisionOf };
  }
  if (method === CODEX.fileChangeApproval) {
    const p = ApprovalRequestSchema.safeParse(params);
    if (!p.success) return null;
    const change = fileChanges(p.data.threadId, p.data.itemId);
    const reason = p.data.grantRoot ? `${p.data.reason ?? 'Codex asks'} (write access under ${p.data.grantRoot})` : (p.data.reason ?? null);
    return { threadId: p.data.threadId, ask: { kind: 'fileChange', command: change?.paths.join(', ') || 'File change', reason, detail: change?.diff ?? null }, respond: decisionOf };
  }
  if (method === CODEX.permissionsApproval) {
    const p = PermissionsRequestSchema.safeParse(params);
    if (!p.success) return null;
    const asked = { ...(p.data.permissions.network ? { network: p.data.permissions.network } : {}), ...(p.data.permissions.fileSystem ? { fileSystem: p.data.permissions.fileSystem } : {}) };
    return {
      threadId: p.data.threadId,
      ask: { kind: 'permissions', command: `More permissions: ${Object.keys(asked).join(', ') || 'none'}`, reason: p.data.reason, detail: JSON.stringify(asked, null, 2) },
      // A decline grants nothing; acceptForSession keeps the grant for the whole session.
      respond: (o) => (o.decision === 'accept' || o.decision === 'acceptForSession' ? { permissions: asked, scope: o.decision === 'acceptForSession' ? 'session' : 'turn' } : { permissions: {}, scope: 'turn' }),
    };
  }
  if (method === CODEX.userInput) {
    const p = UserInputRequestSchema.safeParse(params);
    if (!p.success) return null;
    const questions: ApprovalQuestion[] = p.data.questions.map((q) => ({
      id: q.id,
      header: q.header || null,
      question: q.question,
      options: (q.options ?? []).map((o) => ({ label: o.label, description: o.description || null })),
      multiSelect: false,
      allowOther: q.isOther || !q.options?.length,
      secret: q.isSecret,
    }));
    return {
      threadId: p.data.threadId,
      ask: { kind: 'question', command: questions.map((q) => q.question).join(' · '), reason: null, questions },
      respond: (o) => ({ answers: Object.fromEntries(Object.entries(o.answers ?? {}).map(([id, answers]) => [id, { answers }])) }),
    };
  }
  if (method === CODEX.elicitation) {
    const p = ElicitationRequestSchema.safeParse(params);
    if (!p.success) return null;
    const properties = p.data.requestedSchema?.properties ?? {};
    const questions = elicitationQuestions(properties);
    return {
      threadId: p.data.threadId,
      ask: { kind: 'question', command: p.data.message, reason: `Asked by the MCP server ${p.data.serverName}`, detail: p.data.url ?? null, questions },
      respond: (o) =>
        o.decision === 'decline' || o.decision === 'cancel'
          ? { action: o.decision, content: null, _meta: null }
          : { action: 'accept', content: p.data.mode === 'url' ? null : elicitationContent(properties, o.answers ?? {}), _meta: null },
    };
  }
  return null;
}
