import type { Runtime } from '../runtime/runtime';
import type { MethodHandlers } from './methodHandlers';

type CodexSourceMethods = 'codex.rollouts.list' | 'codex.source.get' | 'codex.source.choose';

/** How many conversation files a page lists when the app does not say. */
const DEFAULT_ROLLOUT_PAGE = 50;

/** Codex conversations opened from their files (SRC-1, SRC-2, SRC-4). */
export function createCodexSourceHandlers(
  runtime: Pick<Runtime, 'codexAgent'>,
): Pick<MethodHandlers, CodexSourceMethods> {
  const codex = runtime.codexAgent;
  return {
    'codex.rollouts.list'(params) {
      return codex.sources.list({
        ...(params?.cursor ? { cursor: params.cursor } : {}),
        limit: params?.limit ?? DEFAULT_ROLLOUT_PAGE,
      });
    },
    'codex.source.get'(params) {
      return { source: codex.sourceOf(params.sessionId) };
    },
    'codex.source.choose'(params) {
      codex.chooseRolloutAgain(params.sessionId, params.path);
      return {};
    },
  };
}
