import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { Approval } from '../../../lib/protocol/agents';
import { UNFINISHED_AT_TURN_END } from '../../../server/runtime/agents/codex/codexAgent';
import {
  CODEX_CLIENT_METHODS,
  CODEX_CLIENT_NOTIFICATIONS,
  CODEX_SERVER_NOTIFICATIONS,
  CODEX_SERVER_REQUESTS,
} from '../../../server/runtime/agents/codex/codexProtocol';
import {
  AGENT_INSTALL_TIMEOUT_MS,
  AGENT_TEST_TIMEOUT_MS,
  codexProtocolNames,
  installedAgents,
  type InstalledAgents,
} from '../../fixtures/agentPackages';
import { codexConfigToml, codexTurnScript, responsesInput, type CodexStep } from '../../fixtures/fakeCodexModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { isCommandRow, readWholeOutput, waitForCommand } from '../../fixtures/sessionHelpers';
import { writeSeededLines } from '../../fixtures/agentOutput';
import {
  createAgentSession,
  createFullAccessCodexSession,
  messageState,
  sendAndWait,
  waitForRows,
} from '../../fixtures/agentSessions';
import { codexCommandStream, recordCodexStdout, type CodexStdoutRecorder } from '../../fixtures/codexStdoutRecorder';
import type { CommandRow } from '../../../lib/protocol/rows';
import { LEDGER_SLACK_PER_DELTA, omittedMarker } from '../../../server/runtime/output/aggregate';
import { waitUntil } from '../../fixtures/waitUntil';

/** Every name the adapter uses that the installed Codex does not know (`codex app-server generate-ts`). */
function codexNamesMissing(codexBin: string): string[] {
  const names = codexProtocolNames(codexBin);
  return [
    ...CODEX_CLIENT_METHODS.filter((m) => !names.clientRequests.has(m)),
    ...CODEX_CLIENT_NOTIFICATIONS.filter((m) => !names.clientNotifications.has(m)),
    ...CODEX_SERVER_NOTIFICATIONS.filter((m) => !names.serverNotifications.has(m)),
    ...CODEX_SERVER_REQUESTS.filter((m) => !names.serverRequests.has(m)),
  ];
}

let agents: InstalledAgents;
let missing: string[];
beforeAll(() => {
  agents = installedAgents();
  // The setup check: a Codex that lacks a method the adapter uses stops the suite here, by name.
  missing = codexNamesMissing(agents.codexBin);
  if (missing.length > 0) throw new Error(`the installed Codex lacks: ${missing.join(', ')}`);
}, AGENT_INSTALL_TIMEOUT_MS);

/**
 * True when `part` is pieces of `whole` in their order: whole deltas lost, no byte invented,
 * changed or moved. Each piece is found by its first 64 bytes (the seeded lines never repeat).
 */
function isOrderedPieces(part: Buffer, whole: Buffer): boolean {
  let from = 0;
  for (let i = 0; i < part.length;) {
    const probe = part.subarray(i, Math.min(part.length, i + 64));
    let at = whole.indexOf(probe, from);
    if (at < 0) return false;
    while (i < part.length && at < whole.length && part[i] === whole[at]) {
      i += 1;
      at += 1;
    }
    from = at;
  }
  return true;
}

/** Codex unified exec's head/tail aggregate of `printed`: 512 KiB, the omitted count, 512 KiB. */
function codexAggregateOf(printed: Buffer): Buffer {
  const half = 512 * 1024;
  return Buffer.concat([
    printed.subarray(0, half),
    Buffer.from(omittedMarker(printed.length - 2 * half), 'latin1'),
    printed.subarray(printed.length - half),
  ]);
}

/**
 * OUT-4 for a 3 MiB command, against what Codex really sent (recorded from its stdout). The
 * runtime's reader must lose nothing: the ledger is exactly Codex's deltas. Codex itself drops
 * whole live deltas when its internal delta stream lags behind the command (more often on a busy
 * machine); then the rule that applies is decided by what arrived:
 * - everything printed arrived (within the ledger's slack): the stream is proven, generation 1;
 * - less arrived, but more than the 1 MiB aggregate: the stream is kept as it arrived, incomplete;
 * - no more than the aggregate arrived: the aggregate becomes generation 2, incomplete.
 */
function expectWhatOut4Keeps(
  row: CommandRow,
  stored: Buffer,
  printed: Buffer,
  codex: { deltas: Buffer[]; aggregate: Buffer | null },
): void {
  const streamed = Buffer.concat(codex.deltas);
  expect(isOrderedPieces(streamed, printed)).toBe(true);
  expect(codex.aggregate?.equals(codexAggregateOf(printed))).toBe(true);
  const aggregate = codex.aggregate!;
  if (streamed.length + LEDGER_SLACK_PER_DELTA >= printed.length) {
    expect(row).toMatchObject({ generation: 1, sourceIncomplete: false });
    expect(stored.equals(streamed)).toBe(true);
  } else if (streamed.length > aggregate.length) {
    expect(row).toMatchObject({ generation: 1, sourceIncomplete: true });
    expect(stored.equals(streamed)).toBe(true);
  } else {
    expect(row).toMatchObject({ generation: 2, sourceIncomplete: true });
    expect(stored.equals(aggregate)).toBe(true);
  }
}

describe('Codex sessions through codex app-server', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  const steps: CodexStep[] = [];
  let env: NodeJS.ProcessEnv;
  let recorder: CodexStdoutRecorder;

  beforeAll(async () => {
    model = await startFakeModelServer(codexTurnScript(() => steps.shift() ?? { message: 'Nothing to run.' }));
    recorder = recordCodexStdout(agents.codexBin);
    env = { HBCODE_CODEX_BIN: recorder.launcher, HBCODE_CODEX_CONFIG_TOML: codexConfigToml(model.url) };
    runtime = await startRuntimeProcess({ env });
    client = await runtime.connect();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    await model?.close();
  });

  it('SES-2 every Codex method and notification the adapter uses exists in the installed version', () => {
    expect(missing).toEqual([]);
    // The check can fail: a name Codex does not have is reported.
    expect(CODEX_CLIENT_METHODS.length).toBeGreaterThan(0);
    const names = codexProtocolNames(agents.codexBin);
    expect(names.clientRequests.has('thread/no-such-method')).toBe(false);
    expect(names.serverNotifications.has('item/commandExecution/outputDelta')).toBe(true);
  });

  it(
    'SES-2 agents.list reports Codex as available',
    async () => {
      const { agents: list } = await client.call('agents.list');
      expect(list.find((a) => a.agent === 'codex')).toMatchObject({ available: true });
      expect(list.find((a) => a.agent === 'shell')).toMatchObject({ available: true });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'OUT-4 a Codex command that prints 3 MiB: the row and every byte read match what it printed, also after a restart; the history stays (STO-4)',
    async () => {
      const printed = writeSeededLines(path.join(runtime.projectDir, 'big.txt'), 3 * 1024 * 1024 + 4321, 'codex');
      const sessionId = await createFullAccessCodexSession(client);
      steps.push({ command: 'cat big.txt' });
      const { runId, rows, commands } = await sendAndWait(client, sessionId, 'Print big.txt');
      const row = commands[0]!;
      expect(row).toMatchObject({ status: 'exited', exitCode: 0, complete: true });
      expect(row.command).toContain('cat big.txt');
      const stored = await readWholeOutput(client, sessionId, row);
      expect(stored.length).toBe(row.byteLength);
      expectWhatOut4Keeps(row, stored, printed, codexCommandStream(recorder.messages(), row.commandId));
      // The runtime's ledger is exactly what Codex sent: its reader lost no delta.
      const settled = runtime
        .output()
        .split('\n')
        .find((line) => line.includes('command output settled') && line.includes(row.commandId));
      expect(settled).toContain(
        `streamedBytes=${Buffer.concat(codexCommandStream(recorder.messages(), row.commandId).deltas).length}`,
      );
      // The turn's closing text is an agent text row of the run (TL-1), live or as Codex's own history holds it.
      expect(rows.find((r) => r.kind === 'agentText' && r.runId === runId)).toMatchObject({ text: 'Done.' });
      // Codex really ran it: the model was sent the command's output.
      const fed = model.requests.flatMap(responsesInput).find((item) => item.type === 'function_call_output');
      expect(JSON.stringify(fed)).toContain('bytes omitted');

      // After a restart the timeline and the bytes are still there, and the same thread continues.
      client.close();
      runtime = await runtime.restart();
      client = await runtime.connect();
      const after = await client.call('sessions.timeline', { sessionId });
      expect(after.rows.filter(isCommandRow).find((r) => r.runId === runId)).toEqual(row);
      expect((await readWholeOutput(client, sessionId, row)).equals(stored)).toBe(true);
      steps.push({ command: 'echo second turn' });
      const second = await sendAndWait(client, sessionId, 'Once more');
      const secondRow = second.commands[0]!;
      expect((await readWholeOutput(client, sessionId, secondRow)).toString()).toBe('second turn\n');
      // The resumed thread sent the model the first turn too: Codex kept its history.
      const last = model.requests.at(-1)!;
      expect(JSON.stringify(responsesInput(last))).toContain('Print big.txt');

      // STO-4: deleting the session leaves Codex's own rollout files as they were.
      const home = path.join(runtime.dataDir, 'codex', 'profiles');
      const rollouts = fs
        .readdirSync(home, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => path.join(home, f));
      expect(rollouts.length).toBeGreaterThan(0);
      const before = rollouts.map((f) => fs.readFileSync(f));
      await client.call('sessions.delete', { sessionId });
      expect(rollouts.map((f) => fs.readFileSync(f))).toEqual(before);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'SES-5 a cancelled Codex turn stops its command and keeps what it printed',
    async () => {
      const sessionId = await createFullAccessCodexSession(client);
      steps.push({ command: 'echo started; sleep 120; echo never' });
      const { runId } = await client.call('chat.send', {
        sessionId,
        operationId: crypto.randomUUID(),
        text: 'Start something long',
      });
      await waitForCommand(client, sessionId, runId, (r) => r.byteLength >= 'started\n'.length, 90_000);
      await client.call('run.cancel', { sessionId, runId });
      const rows = await waitForRows(client, sessionId, (r) => messageState(r, runId) === 'cancelled');
      const row = rows.filter(isCommandRow).find((r) => r.runId === runId)!;
      expect(row.status).toBe('cancelled');
      expect(row.complete).toBe(true);
      const text = (await readWholeOutput(client, sessionId, row)).toString();
      expect(text.startsWith('started\n')).toBe(true);
      expect(text).not.toContain('never');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "ACC-3 a command still running when the model ends Codex's turn ends failed with the reason, never a bare failure",
    async () => {
      const sessionId = await createFullAccessCodexSession(client);
      // Codex hands the model the command's first output after 250 ms; the model answers and the turn ends.
      steps.push({ tool: 'exec_command', args: { cmd: 'echo started; sleep 30; echo late', yield_time_ms: 250 } });
      const { commands } = await sendAndWait(client, sessionId, 'Start it and stop waiting');
      expect(commands).toHaveLength(1);
      expect(commands[0]).toMatchObject({ status: 'failed', exitCode: null, error: UNFINISHED_AT_TURN_END });
      expect((await readWholeOutput(client, sessionId, commands[0]!)).toString()).not.toContain('late');
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});

describe('Codex approvals answered through the protocol', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let other: RpcClient;
  const steps: CodexStep[] = [];

  beforeAll(async () => {
    model = await startFakeModelServer(codexTurnScript(() => steps.shift() ?? { message: 'Nothing to run.' }));
    // A sandboxed profile: a command that asks to leave the sandbox needs the user's approval.
    const toml = codexConfigToml(model.url, 'sandbox_mode = "workspace-write"');
    runtime = await startRuntimeProcess({ env: { HBCODE_CODEX_BIN: agents.codexBin, HBCODE_CODEX_CONFIG_TOML: toml } });
    client = await runtime.connect();
    other = await runtime.connect();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    other?.close();
    await runtime?.stop();
    await model?.close();
  });

  it(
    'SES-2 an approval request reaches every device, one answers, the command runs, and a late second answer is a conflict',
    async () => {
      const sessionId = await createAgentSession(client, 'codex');
      const seen: Approval[] = [];
      other.onNotification('approval.changed', (params) => seen.push(params.approval));
      steps.push({ command: 'echo approved-output', escalate: true });
      const { runId } = await client.call('chat.send', {
        sessionId,
        operationId: crypto.randomUUID(),
        text: 'Run it outside the sandbox',
      });
      const pending: Approval[] = await waitUntil(
        async () => {
          const { approvals } = await other.call('approvals.list', { sessionId });
          return approvals.length > 0 && approvals;
        },
        'the approval request reaches the other device',
        { timeoutMs: 90_000, intervalMs: 100 },
      );
      expect(pending).toHaveLength(1);
      expect(pending[0]).toMatchObject({ runId, decision: null });
      expect(pending[0]!.command).toContain('echo approved-output');
      const { approval } = await other.call('approvals.answer', {
        sessionId,
        approvalId: pending[0]!.id,
        decision: 'accept',
      });
      expect(approval.decision).toBe('accept');
      await expect(
        client.call('approvals.answer', { sessionId, approvalId: pending[0]!.id, decision: 'decline' }),
      ).rejects.toMatchObject({ code: 'conflict' });
      const rows = await waitForRows(client, sessionId, (r) => messageState(r, runId) === 'done');
      const row = rows.filter(isCommandRow).find((r) => r.runId === runId)!;
      expect(row).toMatchObject({ status: 'exited', exitCode: 0 });
      expect((await readWholeOutput(client, sessionId, row)).toString()).toBe('approved-output\n');
      expect(seen.map((a) => a.decision)).toEqual([null, 'accept']);
      expect((await client.call('approvals.list', { sessionId })).approvals).toEqual([]);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
