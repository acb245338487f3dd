/**
 * SES-8's price, side by side in one runtime: the long-lived Claude host against Codex's
 * app-server and the desktop's own stores. Three lines, each a ratio with the spec's 2× target:
 * one 256 KiB slice of a Claude Bash result (OUT-7) against the same slice of a Codex command's
 * artifact; Stop of a Claude turn against Stop of a Codex turn (ACC-6); the first page of a
 * Claude subagent's timeline against its parent's (TL-4). Real Claude Code and real Codex against
 * the fake model servers of the tests.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RpcClient } from '../lib/client/rpcClient';
import { writeSeededLines } from '../tests/fixtures/agentOutput';
import { installedAgents } from '../tests/fixtures/agentPackages';
import {
  codexSettings,
  createAgentSession,
  messageState,
  sendAndWait,
  waitForRows,
} from '../tests/fixtures/agentSessions';
import { acceptEveryApproval } from '../tests/fixtures/claudeControlScenario';
import { claudeEnv, messagesUserText } from '../tests/fixtures/fakeClaudeModel';
import { claudeScenarioScript } from '../tests/fixtures/fakeClaudeScenario';
import { codexConfigToml, codexTurnScript, type CodexStep } from '../tests/fixtures/fakeCodexModel';
import { startFakeModelServer } from '../tests/fixtures/fakeModelServer';
import { startRuntimeProcess } from '../tests/fixtures/runtimeProcess';
import { waitForCommand } from '../tests/fixtures/sessionHelpers';
import type { Benchmark, BenchOutcome } from './lib/report';
import { median, now } from './lib/rounds';
import { makeTempDir } from './lib/tempDirs';
import { timeReads } from './agent-history-read';

const OUTPUT_BYTES = 3 * 1024 * 1024;
const SLICE_READS = 12;
const STOP_ROUNDS = 5;
const OPEN_ROUNDS = 12;
const TARGET = 2;

const PRINT = 'BENCH-PRINT: print big.txt';
const TOUR = 'BENCH-SUBAGENT: ask a helper';
const HELPER = 'BENCH-HELPER: read the notes';
const HANG = 'BENCH-HANG: think for ever';

/** Starts a turn, waits until `underWay`, stops it; the time from run.cancel until the row says cancelled. */
async function timeStop(
  client: RpcClient,
  sessionId: string,
  text: string,
  underWay: (runId: string) => Promise<unknown>,
): Promise<number> {
  const { runId } = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text });
  await underWay(runId);
  const started = now();
  await client.call('run.cancel', { sessionId, runId });
  await waitForRows(client, sessionId, (rows) => messageState(rows, runId) === 'cancelled', 60_000);
  return now() - started;
}

/** The time until the first page of a timeline (a subagent's with `parentItemId`) is back. */
async function timeOpen(client: RpcClient, sessionId: string, parentItemId?: string): Promise<number> {
  const started = now();
  const { rows } = await client.call('sessions.timeline', {
    sessionId,
    ...(parentItemId ? { parentItemId } : {}),
    limit: 50,
  });
  const took = now() - started;
  if (rows.length === 0) throw new Error('the timeline opened empty');
  return took;
}

export const claudeHost: Benchmark = {
  name: 'claude-host',
  async run(progress): Promise<BenchOutcome> {
    const agents = installedAgents();
    let hanging = 0;
    const claudeScript = claudeScenarioScript({
      conversations: {
        [PRINT]: [
          {
            blocks: [
              { type: 'tool_use', name: 'Bash', input: { command: 'cat big.txt', description: 'Print the file' } },
            ],
          },
          { blocks: [{ type: 'text', deltas: ['Printed.'] }] },
        ],
        [TOUR]: [
          {
            blocks: [
              {
                type: 'tool_use',
                name: 'Agent',
                input: {
                  description: 'Read the notes',
                  prompt: HELPER,
                  subagent_type: 'general-purpose',
                  run_in_background: false,
                },
              },
            ],
          },
          { blocks: [{ type: 'text', deltas: ['The helper read them.'] }] },
        ],
        [HELPER]: [
          { blocks: [{ type: 'tool_use', name: 'Read', input: { file_path: 'notes.txt' } }] },
          { blocks: [{ type: 'text', deltas: ['The notes have lines.'] }] },
        ],
      },
    });
    const claudeModel = await startFakeModelServer((request) => {
      if ((request.body as { stream?: boolean } | null)?.stream && messagesUserText(request).includes(HANG)) {
        hanging += 1;
        return { kind: 'hang' };
      }
      return claudeScript(request);
    });
    const codexSteps: CodexStep[] = [];
    const codexModel = await startFakeModelServer(
      codexTurnScript(() => codexSteps.shift() ?? { message: 'Nothing to run.' }),
    );
    const configDir = makeTempDir('hbcode-bench-claude-host-');
    fs.writeFileSync(
      path.join(configDir, 'settings.json'),
      JSON.stringify({ permissions: { allow: ['Bash', 'Read', 'Agent'] } }),
    );
    const runtime = await startRuntimeProcess({
      env: {
        ...claudeEnv(claudeModel.url, configDir, agents.claudeBin),
        HBCODE_CODEX_BIN: agents.codexBin,
        HBCODE_CODEX_CONFIG_TOML: codexConfigToml(codexModel.url),
      },
    });
    const client = await runtime.connect();
    acceptEveryApproval(client);
    const newCodexSession = () =>
      createAgentSession(client, 'codex', undefined, codexSettings({ sandbox: 'danger-full-access' }));
    try {
      const printed = writeSeededLines(path.join(runtime.projectDir, 'big.txt'), OUTPUT_BYTES, 'bench');
      fs.writeFileSync(path.join(runtime.projectDir, 'notes.txt'), 'one\ntwo\nthree\n');

      progress('OUT-7: a Claude turn and a Codex turn print the same 3 MiB');
      const claudeSession = await createAgentSession(client, 'claude');
      const claudeRow = (await sendAndWait(client, claudeSession, PRINT)).commands[0]!;
      const codexSession = await newCodexSession();
      codexSteps.push({ command: 'cat big.txt' });
      const codexRow = (await sendAndWait(client, codexSession, 'Print big.txt')).commands[0]!;
      progress(`OUT-7: ${SLICE_READS} slices of each, alternating`);
      const claudeSlices: number[] = [];
      const codexSlices: number[] = [];
      for (let i = 0; i < SLICE_READS; i++) {
        claudeSlices.push(...(await timeReads(client, claudeSession, claudeRow, 1, printed)));
        codexSlices.push(...(await timeReads(client, codexSession, codexRow, 1, printed)));
      }

      progress('TL-4: a Claude turn with a subagent');
      const tourSession = await createAgentSession(client, 'claude');
      const { rows } = await sendAndWait(client, tourSession, TOUR);
      const subagent = rows.find((row) => row.kind === 'subagent');
      if (!subagent || subagent.kind !== 'subagent') throw new Error('the turn has no subagent row');
      const parentOpen: number[] = [];
      const subagentOpen: number[] = [];
      for (let i = 0; i < OPEN_ROUNDS; i++) {
        parentOpen.push(await timeOpen(client, tourSession));
        subagentOpen.push(await timeOpen(client, tourSession, subagent.itemId));
      }

      const claudeStops: number[] = [];
      const codexStops: number[] = [];
      for (let round = 0; round < STOP_ROUNDS; round++) {
        progress(`ACC-6: Stop round ${round + 1} of ${STOP_ROUNDS}`);
        const waitedBefore = hanging;
        claudeStops.push(
          await timeStop(client, await createAgentSession(client, 'claude'), HANG, async () => {
            await new Promise<void>((resolve, reject) => {
              const deadline = Date.now() + 120_000;
              const check = () =>
                hanging > waitedBefore
                  ? resolve()
                  : Date.now() > deadline
                    ? reject(new Error('the Claude turn never asked its model'))
                    : setTimeout(check, 20);
              check();
            });
          }),
        );
        codexSteps.push({ command: 'echo started; sleep 120' });
        const session = await newCodexSession();
        codexStops.push(
          await timeStop(client, session, 'Run something long', (runId) =>
            waitForCommand(client, session, runId, (r) => r.byteLength >= 'started\n'.length, 90_000),
          ),
        );
      }

      return {
        comparisons: [
          {
            rule: 'OUT-7',
            label: 'one 256 KiB slice of a 3 MiB result (median)',
            unit: 'ms',
            better: 'lower',
            oursName: 'Claude Bash result (kept by the runtime after the first read)',
            referenceName: 'Codex command artifact',
            ours: median(claudeSlices),
            reference: median(codexSlices),
            target: TARGET,
          },
          {
            rule: 'ACC-6',
            label: 'Stop until the row says cancelled (median)',
            unit: 'ms',
            better: 'lower',
            oursName: 'Claude turn (interrupt)',
            referenceName: 'Codex turn (turn/interrupt)',
            ours: median(claudeStops),
            reference: median(codexStops),
            target: TARGET,
          },
          {
            rule: 'TL-4',
            label: 'open a timeline, first page (median)',
            unit: 'ms',
            better: 'lower',
            oursName: 'Claude subagent timeline',
            referenceName: 'its parent timeline',
            ours: median(subagentOpen),
            reference: median(parentOpen),
            target: TARGET,
          },
        ],
        parameters: {
          outputBytes: printed.length,
          sliceReads: SLICE_READS,
          stopRounds: STOP_ROUNDS,
          openRounds: OPEN_ROUNDS,
        },
        measurements: {
          claudeSliceMs: claudeSlices,
          codexSliceMs: codexSlices,
          claudeStopMs: claudeStops,
          codexStopMs: codexStops,
          subagentOpenMs: subagentOpen,
          parentOpenMs: parentOpen,
        },
        notes: [
          'Every Claude read and turn goes to the one long-lived host of the account (SES-8); the first request of the run starts it.',
          "OUT-7: the first Claude slice comes from the host, which is then asked for the whole result once; the runtime keeps it and cuts later slices itself while Claude's files still hold it (claudeSliceMs[0] and [1] include that fetch). Every byte of every slice is checked.",
          'The Claude turn being stopped waits on a model request that never answers; the Codex turn runs a sleep.',
        ],
      };
    } finally {
      client.close();
      await runtime.stop();
      await claudeModel.close();
      await codexModel.close();
    }
  },
};
