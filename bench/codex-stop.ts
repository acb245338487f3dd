/**
 * ACC-6's budget: Stop (`run.cancel`) on a Codex turn whose command is running, until the
 * message row says cancelled, against the same Stop on a shell session's command. Real Codex
 * against the fake model server of the tests; the spec's budget is 5 s from the tap.
 */
import crypto from 'node:crypto';
import type { RpcClient } from '../lib/client/rpcClient';
import { installedAgents } from '../tests/fixtures/agentPackages';
import { codexSettings, createAgentSession, messageState, waitForRows } from '../tests/fixtures/agentSessions';
import { codexConfigToml, codexTurnScript } from '../tests/fixtures/fakeCodexModel';
import { startFakeModelServer } from '../tests/fixtures/fakeModelServer';
import { startRuntimeProcess } from '../tests/fixtures/runtimeProcess';
import { waitForCommand } from '../tests/fixtures/sessionHelpers';
import type { Benchmark, BenchOutcome } from './lib/report';
import { median, now } from './lib/rounds';

const ROUNDS = 5;

/** Starts a long command in a new session, then times Stop until the run is cancelled. */
async function timeStop(client: RpcClient, sessionId: string, text: string): Promise<number> {
  const { runId } = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text });
  await waitForCommand(client, sessionId, runId, (r) => r.byteLength >= 'started\n'.length, 90_000);
  const started = now();
  await client.call('run.cancel', { sessionId, runId });
  await waitForRows(client, sessionId, (rows) => messageState(rows, runId) === 'cancelled', 60_000);
  return now() - started;
}

export const codexStop: Benchmark = {
  name: 'codex-stop',
  async run(progress): Promise<BenchOutcome> {
    const agents = installedAgents();
    const model = await startFakeModelServer(codexTurnScript(() => ({ command: 'echo started; sleep 120' })));
    const runtime = await startRuntimeProcess({
      env: { HBCODE_CODEX_BIN: agents.codexBin, HBCODE_CODEX_CONFIG_TOML: codexConfigToml(model.url) },
    });
    const client = await runtime.connect();
    try {
      const codex: number[] = [];
      const shell: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        progress(`ACC-6: round ${i + 1} of ${ROUNDS}`);
        codex.push(
          await timeStop(
            client,
            await createAgentSession(client, 'codex', undefined, codexSettings({ sandbox: 'danger-full-access' })),
            'Run something long',
          ),
        );
        shell.push(await timeStop(client, await createAgentSession(client, 'shell'), 'echo started; sleep 120'));
      }
      return {
        comparisons: [
          {
            rule: 'ACC-6',
            label: 'Stop until the row says cancelled (median)',
            unit: 'ms',
            better: 'lower',
            oursName: 'Codex turn (turn/interrupt)',
            referenceName: 'shell command',
            ours: median(codex),
            reference: median(shell),
            target: null,
          },
        ],
        parameters: { rounds: ROUNDS },
        measurements: { codexMs: codex, shellMs: shell, budgetMs: 5000 },
        notes: [
          'The budget is 5 s from the tap (ACC-6); both columns are far inside it when the medians are under 5000 ms.',
        ],
      };
    } finally {
      client.close();
      await runtime.stop();
      await model.close();
    }
  },
};
