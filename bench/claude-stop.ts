/**
 * ACC-6's budget: Stop ends a running Claude turn within 5 s. Time from `run.cancel` until the
 * run's row says cancelled, for a Claude turn waiting on its model (interrupted through the SDK),
 * against the same for a shell command (its process group stopped). Real Claude Code against the
 * fake model server of the tests.
 */
import crypto from 'node:crypto';
import type { RpcClient } from '../lib/client/rpcClient';
import { installedAgents } from '../tests/fixtures/agentPackages';
import { createAgentSession, messageState, waitForRows } from '../tests/fixtures/agentSessions';
import { claudeEnv, claudeTurnScript, type ClaudeStep } from '../tests/fixtures/fakeClaudeModel';
import { startFakeModelServer } from '../tests/fixtures/fakeModelServer';
import { startRuntimeProcess } from '../tests/fixtures/runtimeProcess';
import { waitUntil } from '../tests/fixtures/waitUntil';
import type { Benchmark, BenchOutcome } from './lib/report';
import { makeTempDir } from './lib/tempDirs';
import { median, now } from './lib/rounds';

const ROUNDS = 3;
const BUDGET_MS = 5000;

/** Starts a turn, waits until it really runs, stops it; the time until the row says cancelled. */
async function timeStop(
  client: RpcClient,
  sessionId: string,
  text: string,
  running: () => boolean | Promise<boolean>,
): Promise<number> {
  const { runId } = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text });
  await waitForRows(client, sessionId, (rows) => messageState(rows, runId) === 'running');
  await waitUntil(running, 'the turn is under way', { timeoutMs: 120_000, intervalMs: 20 });
  const started = now();
  await client.call('run.cancel', { sessionId, runId });
  await waitForRows(client, sessionId, (rows) => messageState(rows, runId) === 'cancelled', 60_000);
  return now() - started;
}

export const claudeStop: Benchmark = {
  name: 'claude-stop',
  async run(progress): Promise<BenchOutcome> {
    const agents = installedAgents();
    const steps: ClaudeStep[] = [];
    const model = await startFakeModelServer(claudeTurnScript(() => steps.shift() ?? { hang: true }));
    const runtime = await startRuntimeProcess({
      env: claudeEnv(model.url, makeTempDir('hbcode-bench-claude-'), agents.claudeBin),
    });
    const client = await runtime.connect();
    try {
      const claude: number[] = [];
      const shell: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        progress(`ACC-6: round ${round + 1} of ${ROUNDS}`);
        const claudeSession = await createAgentSession(client, 'claude');
        steps.push({ hang: true });
        claude.push(await timeStop(client, claudeSession, 'Think for ever', () => steps.length === 0));
        const shellSession = await createAgentSession(client, 'shell');
        shell.push(await timeStop(client, shellSession, 'sleep 600', () => true));
      }
      return {
        comparisons: [
          {
            rule: 'ACC-6',
            label: 'Stop until the row says cancelled (median)',
            unit: 'ms',
            better: 'lower',
            oursName: 'Claude turn (interrupt)',
            referenceName: 'shell command',
            ours: median(claude),
            reference: median(shell),
            target: null,
          },
        ],
        parameters: { rounds: ROUNDS, budgetMs: BUDGET_MS },
        measurements: { claudeMs: claude, shellMs: shell, withinBudget: claude.every((ms) => ms < BUDGET_MS) },
        notes: [
          'The Claude turn waits on a model request that never answers; Stop sends interrupt() to the long-lived host (SES-8), which cancels the query 1.5 s later if the turn has not ended.',
        ],
      };
    } finally {
      client.close();
      await runtime.stop();
      await model.close();
    }
  },
};
