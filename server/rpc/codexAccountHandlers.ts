import type { CodexAccounts } from '../runtime/agents/codex/codexAccounts';
import type { MethodHandlers } from './methodHandlers';

type CodexAccountMethods =
  | 'codex.profiles.list'
  | 'codex.profiles.add'
  | 'codex.profiles.rename'
  | 'codex.profiles.remove'
  | 'codex.profiles.refresh'
  | 'codex.login.start'
  | 'codex.logout'
  | 'codex.threads.list';

/** Codex profiles, sign-in and saved threads (ACC-1, ACC-8), all through the profile's app-server. */
export function createCodexAccountHandlers(accounts: CodexAccounts): Pick<MethodHandlers, CodexAccountMethods> {
  return {
    'codex.profiles.list'() {
      return { profiles: accounts.list() };
    },
    'codex.profiles.add'(params) {
      return { profile: accounts.add(params.name) };
    },
    'codex.profiles.rename'(params) {
      return { profile: accounts.rename(params.profileId, params.name) };
    },
    async 'codex.profiles.remove'(params) {
      await accounts.remove(params.profileId);
      return {};
    },
    async 'codex.profiles.refresh'(params) {
      return { profile: await accounts.refresh(params.profileId) };
    },
    async 'codex.login.start'(params) {
      return accounts.loginStart(params.profileId, params.method, params.apiKey);
    },
    async 'codex.logout'(params) {
      return { profile: await accounts.logout(params.profileId) };
    },
    async 'codex.threads.list'(params) {
      return { threads: await accounts.threads(params.profileId, params.cwd) };
    },
  };
}
