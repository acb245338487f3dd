import type { RecentConversation } from '../../../lib/protocol/agents';
import type { ClaudeAgent } from './claude/claudeAgent';
import type { CodexAgent } from './codex/codexAgent';

export interface RecentConversationsRequest {
  projectDirectory: string;
  agent: RecentConversation['agent'];
  /** Codex: the profile whose threads are listed (the first when absent). */
  accountKey?: string;
  limit?: number;
}

const DEFAULT_LIMIT = 50;

/** A title fit for `sessions.create`: whitespace folded, at most 200 characters. */
const titleOf = (...candidates: (string | null | undefined)[]) =>
  candidates.map((text) => (text ?? '').replace(/\s+/g, ' ').trim().slice(0, 200)).find((line) => line.length > 0) ??
  'Untitled conversation';

/**
 * ACC-11: the conversations Claude or Codex saved for a project folder, newest first, in one shape
 * for the New session picker: what each agent's own listing says (Claude's listSessions, Codex's
 * `thread/list`), never read from their files by the runtime (SES-2).
 */
export async function recentConversations(
  agents: { claude: ClaudeAgent; codex: CodexAgent },
  request: RecentConversationsRequest,
): Promise<RecentConversation[]> {
  const limit = request.limit ?? DEFAULT_LIMIT;
  if (request.agent === 'claude') {
    const saved = await agents.claude.savedSessions(request.projectDirectory, limit);
    return saved.map((s) => ({
      agent: 'claude',
      id: s.claudeSessionId,
      title: titleOf(s.summary, s.firstPrompt),
      firstPrompt: s.firstPrompt ?? null,
      updatedAt: Math.round(s.lastModified),
      sizeBytes: s.sizeBytes ?? null,
      gitBranch: s.gitBranch,
      openInSessionId: s.openInSessionId,
      ownCodexHome: false,
    }));
  }
  const threads = await agents.codex.savedThreads(request.accountKey ?? null, request.projectDirectory, limit);
  const inProfile: RecentConversation[] = threads.map((t) => ({
    agent: 'codex',
    id: t.id,
    title: titleOf(t.name, t.preview),
    firstPrompt: t.preview || null,
    updatedAt: t.updatedAt ?? t.createdAt ?? 0,
    sizeBytes: t.sizeBytes ?? null,
    gitBranch: t.gitBranch ?? null,
    openInSessionId: t.openInSessionId,
    ownCodexHome: false,
  }));
  // A thread already copied into the profile is listed once, as the profile's (it may have gone on there).
  const listed = new Set(inProfile.map((c) => c.id));
  const ownHome = agents.codex
    .ownHomeThreads(request.accountKey ?? null, request.projectDirectory, limit)
    .filter((r) => !listed.has(r.threadId));
  const fromOwnHome: RecentConversation[] = ownHome.map((r) => ({
    agent: 'codex',
    id: r.threadId,
    title: titleOf(r.firstPrompt),
    firstPrompt: r.firstPrompt,
    updatedAt: r.updatedAt,
    sizeBytes: r.size,
    gitBranch: r.gitBranch,
    openInSessionId: r.openInSessionId,
    ownCodexHome: true,
  }));
  return [...inProfile, ...fromOwnHome].sort((a, b) => b.updatedAt - a.updatedAt).slice(0, limit);
}
