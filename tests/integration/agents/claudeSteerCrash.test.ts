import { describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS } from '../../fixtures/agentPackages';
import { claudeSteerCrash } from '../../fixtures/steerCrashScenarios';

/** Round 0 dies at once and the last round once its steer was delivered; the rest at seeded moments. Twenty: `npm run bench acc6`. */
const ROUNDS = 4;

/**
 * ACC-6 under crashes with the real Claude Code through the Agent SDK: the runtime is killed
 * (SIGKILL) 0–3 s after a steer into a turn whose Bash command takes a second.
 */
describe('Steering a Claude turn when the runtime is killed', () => {
  it(
    `ACC-6 runtime SIGKILL 0–3 s after a steer, ${ROUNDS} rounds: a steer row says delivered only when the model was sent it`,
    async () => {
      const outcomes = await claudeSteerCrash(ROUNDS);
      expect(outcomes).toHaveLength(ROUNDS);
      expect(outcomes).toContain('delivered');
      expect(outcomes).toContain('notDelivered');
    },
    AGENT_INSTALL_TIMEOUT_MS + 15 * 60_000,
  );
});
