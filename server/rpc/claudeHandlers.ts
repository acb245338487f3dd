import { notFound } from '../runtime/errors';
import type { Runtime } from '../runtime/runtime';
import type { MethodHandlers } from './methodHandlers';

type ClaudeMethod = Extract<keyof MethodHandlers, `claude.${string}`>;

/** claude.* methods (ACC-2, ACC-5, ACC-8): accounts, models, saved conversations. */
export function createClaudeHandlers(runtime: Runtime): Pick<MethodHandlers, ClaudeMethod> {
  const claude = runtime.claudeAgent;
  return {
    'claude.accounts.list'() {
      return claude.accounts.list();
    },
    'claude.accounts.add'(params) {
      return { account: claude.accounts.add(params.label) };
    },
    'claude.accounts.remove'(params) {
      claude.accounts.remove(params.accountId);
      return {};
    },
    'claude.accounts.activate'(params) {
      claude.accounts.activate(params.accountId);
      return {};
    },
    'claude.accounts.setApiKey'(params) {
      claude.accounts.setApiKey(params.accountId, params.apiKey);
      return {};
    },
    async 'claude.accounts.status'(params) {
      return { status: await claude.accountStatus(params.accountId) };
    },
    async 'claude.models.list'(params) {
      return { models: await claude.models(params.accountId ?? null) };
    },
    async 'claude.sessions.list'(params) {
      const project = runtime.projects.find((p) => p.id === params.projectId);
      if (!project) throw notFound('No such project.', { projectId: params.projectId });
      return { sessions: await claude.savedSessions(project.directory, params.limit ?? 50) };
    },
  };
}
