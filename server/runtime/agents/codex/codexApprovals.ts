import type { ApprovalAsk, ApprovalQuestion } from '../../../../lib/protocol/agents';
import type { ApprovalOutcome } from '../approvals';
import { ApprovalRequestSchema, CODEX, PermissionsRequestSchema, UserInputRequestSchema } from './codexProtocol';
import { elicitationApproval } from './codexElicitations';
import { describePermissions } from './codexPermissions';

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

/**
 * Maps the approval kinds Codex asks for (ACC-4): a command, a file change (with its diff), more
 * permissions, questions to the user (request_user_input), an MCP server's form (elicitation) and
 * Codex's own question before an MCP tool runs (sent as an elicitation too).
 * Null for a request that is none of these.
 */
export function codexApproval(method: string, params: unknown, fileChanges: FileChanges): CodexApproval | null {
  if (method === CODEX.commandApproval) {
    const p = ApprovalRequestSchema.safeParse(params);
    if (!p.success) return null;
    return {
      threadId: p.data.threadId,
      ask: {
        kind: 'command',
        itemId: p.data.itemId,
        command: p.data.command ?? '',
        reason: p.data.reason ?? null,
        detail: p.data.cwd ? `in ${p.data.cwd}` : null,
      },
      respond: decisionOf,
    };
  }
  if (method === CODEX.fileChangeApproval) {
    const p = ApprovalRequestSchema.safeParse(params);
    if (!p.success) return null;
    const change = fileChanges(p.data.threadId, p.data.itemId);
    const reason = p.data.grantRoot
      ? `${p.data.reason ?? 'Codex asks'} (write access under ${p.data.grantRoot})`
      : (p.data.reason ?? null);
    return {
      threadId: p.data.threadId,
      ask: {
        kind: 'fileChange',
        itemId: p.data.itemId,
        command: change?.paths.join(', ') || 'File change',
        reason,
        detail: change?.diff ?? null,
      },
      respond: decisionOf,
    };
  }
  if (method === CODEX.permissionsApproval) {
    const p = PermissionsRequestSchema.safeParse(params);
    if (!p.success) return null;
    const asked = {
      ...(p.data.permissions.network ? { network: p.data.permissions.network } : {}),
      ...(p.data.permissions.fileSystem ? { fileSystem: p.data.permissions.fileSystem } : {}),
    };
    return {
      threadId: p.data.threadId,
      ask: {
        kind: 'permissions',
        command: `More permissions: ${Object.keys(asked).join(', ') || 'none'}`,
        reason: p.data.reason,
        detail: describePermissions(asked),
      },
      // A decline grants nothing; acceptForSession keeps the grant for the whole session.
      respond: (o) =>
        o.decision === 'accept' || o.decision === 'acceptForSession'
          ? { permissions: asked, scope: o.decision === 'acceptForSession' ? 'session' : 'turn' }
          : { permissions: {}, scope: 'turn' },
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
      respond: (o) => ({
        answers: Object.fromEntries(Object.entries(o.answers ?? {}).map(([id, answers]) => [id, { answers }])),
      }),
    };
  }
  if (method === CODEX.elicitation) return elicitationApproval(params);
  return null;
}
