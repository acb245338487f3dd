import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { CommandRow } from '../../../lib/protocol/rows';
import { PERSISTED_CAP_BYTES } from '../../../server/runtime/output/agentCopy';
import {
  AGENT_INSTALL_TIMEOUT_MS,
  AGENT_TEST_TIMEOUT_MS,
  installedAgents,
  type InstalledAgents,
} from '../../fixtures/agentPackages';
import { writeSeededLines } from '../../fixtures/agentOutput';
import { createFullAccessCodexSession, sendAndWait, waitForRows } from '../../fixtures/agentSessions';
import { codexCommandStream, recordCodexStdout, type CodexLoss } from '../../fixtures/codexStdoutRecorder';
import { codexConfigToml, codexTurnScript, type CodexStep } from '../../fixtures/fakeCodexModel';
import { startFakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { isCommandRow, readWholeOutput } from '../../fixtures/sessionHelpers';
import { waitUntil } from '../../fixtures/waitUntil';

const KiB = 1024;
const MiB = 1024 * KiB;

let agents: InstalledAgents;
beforeAll(() => {
  agents = installedAgents();
}, AGENT_INSTALL_TIMEOUT_MS);

/** A real runtime whose Codex is the pinned one, its stdout recorded (and, with `loss`, made lossy). */
async function startCodexRuntime(loss?: CodexLoss) {
  const steps: CodexStep[] = [];
  const model = await startFakeModelServer(codexTurnScript(() => steps.shift() ?? { message: 'Nothing to run.' }));
  const recorder = recordCodexStdout(agents.codexBin, loss);
  const runtime = await startRuntimeProcess({
    env: { HBCODE_CODEX_BIN: recorder.launcher, HBCODE_CODEX_CONFIG_TOML: codexConfigToml(model.url) },
  });
  const client = await runtime.connect();
  return { steps, model, recorder, runtime, client };
}

/** The runtime's log line about one command (`command output settled`, `command output saved copy`), once it is there. */
function logLine(runtime: RuntimeProcess, message: string, commandId: string): Promise<string> {
  return waitUntil(
    () =>
      runtime
        .output()
        .split('\n')
        .find((line) => line.includes(` ${message} `) && line.includes(`commandId="${commandId}"`)) ?? false,
    `the runtime logs "${message}" for ${commandId}`,
    { timeoutMs: 60_000, intervalMs: 50 },
  );
}

function field(line: string, name: string): string | undefined {
  return new RegExp(` ${name}=("[^"]*"|[^ ]+)`).exec(line)?.[1]?.replace(/^"|"$/g, '');
}

/** The command row of a run once `done` holds for it (the saved copy is read after the turn, in the background). */
async function commandRowWhen(
  client: RpcClient,
  sessionId: string,
  runId: string,
  done: (row: CommandRow) => boolean,
): Promise<CommandRow> {
  const rows = await waitForRows(
    client,
    sessionId,
    (r) => r.some((row) => isCommandRow(row) && row.runId === runId && done(row)),
    60_000,
  );
  return rows.filter(isCommandRow).find((row) => row.runId === runId)!;
}

/** Busy processes for the length of a test: Codex's reader falls behind on a loaded machine. */
function loadTheMachine(count: number): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

describe('OUT-4 Codex output completed after it settles, under load', () => {
  let fx: Awaited<ReturnType<typeof startCodexRuntime>>;
  beforeAll(async () => {
    fx = await startCodexRuntime();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    fx?.client.close();
    await fx?.runtime.stop();
    await fx?.model.close();
  });

  it(
    'OUT-4 a 3 MiB Codex command on a machine under CPU load: the settled row reads byte-exact whenever the stream or Codex kept every byte, else the longest copy with sourceIncomplete',
    async () => {
      const { client, runtime, recorder, steps } = fx;
      const printed = writeSeededLines(path.join(runtime.projectDir, 'big.txt'), 3 * MiB + 4321, 'loaded');
      const sessionId = await createFullAccessCodexSession(client);
      steps.push({ command: 'cat big.txt' });
      const busy = loadTheMachine(2);
      let sent: Awaited<ReturnType<typeof sendAndWait>>;
      try {
        sent = await sendAndWait(client, sessionId, 'Print big.txt');
      } finally {
        for (const child of busy) child.kill('SIGKILL');
      }
      const { commandId } = await commandRowWhen(client, sessionId, sent.runId, () => true);
      const codex = codexCommandStream(recorder.messages(), commandId);
      const streamed = Buffer.concat(codex.deltas);
      const settled = await logLine(runtime, 'command output settled', commandId);
      // The ledger is what Codex sent: the runtime's own reader lost nothing.
      expect(Number(field(settled, 'streamedBytes'))).toBe(streamed.length);
      console.info(
        `loaded 3 MiB run: printed ${printed.length} bytes, Codex streamed ${streamed.length} in ${codex.deltas.length} deltas`,
      );
      if (streamed.equals(printed)) {
        const row = await commandRowWhen(client, sessionId, sent.runId, () => true);
        expect(row).toMatchObject({
          status: 'exited',
          exitCode: 0,
          generation: 1,
          complete: true,
          sourceIncomplete: false,
        });
        expect((await readWholeOutput(client, sessionId, row)).equals(printed)).toBe(true);
        return;
      }
      // Codex lost live deltas. Its saved copy is asked for and is a 64 KiB cut (Codex 0.171 saves no
      // more), so no one kept every byte: the longer stream stays, flagged.
      const saved = await logLine(runtime, 'command output saved copy', commandId);
      expect(field(saved, 'copyBytes')).toBe(String(PERSISTED_CAP_BYTES));
      expect(field(saved, 'action')).toBe('keep');
      // OUT-4 as before: the stream when it is longer than Codex's 1 MiB aggregate, else the aggregate.
      const kept =
        streamed.length > codex.aggregate!.length
          ? { generation: 1, bytes: streamed }
          : { generation: 2, bytes: codex.aggregate! };
      const row = await commandRowWhen(client, sessionId, sent.runId, () => true);
      expect(row).toMatchObject({ generation: kept.generation, complete: true, sourceIncomplete: true });
      expect((await readWholeOutput(client, sessionId, row)).equals(kept.bytes)).toBe(true);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});

describe('OUT-4 Codex output completed after it settles, when Codex lost live deltas', () => {
  let fx: Awaited<ReturnType<typeof startCodexRuntime>>;
  beforeAll(async () => {
    // Every third delta lost and no completion aggregate: only Codex's saved copy can prove the bytes.
    fx = await startCodexRuntime({ dropEvery: 3, dropAggregate: true });
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    fx?.client.close();
    await fx?.runtime.stop();
    await fx?.model.close();
  });

  it(
    "OUT-4 a command of up to 64 KiB whose live deltas were lost: the settled row reads byte-exact from Codex's saved copy, generation 2, sourceIncomplete false",
    async () => {
      const { client, runtime, recorder, steps } = fx;
      // Six parts with pauses between them: Codex streams them as separate deltas.
      const parts = Array.from({ length: 6 }, (_, i) =>
        writeSeededLines(path.join(runtime.projectDir, `part${i}.txt`), 9 * KiB, `part${i}`),
      );
      const printed = Buffer.concat(parts);
      expect(printed.length).toBeLessThanOrEqual(PERSISTED_CAP_BYTES);
      const sessionId = await createFullAccessCodexSession(client);
      steps.push({ command: 'for i in 0 1 2 3 4 5; do cat part$i.txt; sleep 0.3; done' });
      const sent = await sendAndWait(client, sessionId, 'Print the parts');
      const { commandId } = await commandRowWhen(client, sessionId, sent.runId, () => true);
      // The test means something only when the stream really was short and unproven.
      const settled = await logLine(runtime, 'command output settled', commandId);
      expect(Number(field(settled, 'streamedBytes'))).toBeLessThan(printed.length);
      expect(field(settled, 'aggregateBytes')).toBe('null');
      expect(Buffer.concat(codexCommandStream(recorder.messages(), commandId).deltas).length).toBeLessThan(
        printed.length,
      );

      const row = await commandRowWhen(client, sessionId, sent.runId, (r) => r.generation === 2);
      expect(row).toMatchObject({
        status: 'exited',
        exitCode: 0,
        complete: true,
        sourceIncomplete: false,
        byteLength: printed.length,
      });
      expect((await readWholeOutput(client, sessionId, row)).equals(printed)).toBe(true);
      // The first generation is gone: a read of it is a conflict, and the app refreshes the row (OUT-5).
      await expect(
        client.call('run.chatCommandOutputRead', {
          appSessionId: sessionId,
          runId: row.runId,
          commandId,
          generation: 1,
          offset: 0,
          length: 1024,
        }),
      ).rejects.toMatchObject({ code: 'conflict' });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "OUT-4 a 3 MiB command whose live deltas were lost: Codex's saved copy is a 64 KiB cut, so the longer stream stays with sourceIncomplete true",
    async () => {
      const { client, runtime, recorder, steps } = fx;
      const printed = writeSeededLines(path.join(runtime.projectDir, 'big.txt'), 3 * MiB + 4321, 'lossy');
      const sessionId = await createFullAccessCodexSession(client);
      steps.push({ command: 'cat big.txt' });
      const sent = await sendAndWait(client, sessionId, 'Print big.txt');
      const { commandId } = await commandRowWhen(client, sessionId, sent.runId, () => true);
      const streamed = Buffer.concat(codexCommandStream(recorder.messages(), commandId).deltas);
      expect(streamed.length).toBeLessThan(printed.length);
      const saved = await logLine(runtime, 'command output saved copy', commandId);
      expect(field(saved, 'copyBytes')).toBe(String(PERSISTED_CAP_BYTES));
      expect(field(saved, 'action')).toBe('keep');
      const row = await commandRowWhen(client, sessionId, sent.runId, () => true);
      expect(row).toMatchObject({ generation: 1, complete: true, sourceIncomplete: true, byteLength: streamed.length });
      expect((await readWholeOutput(client, sessionId, row)).equals(streamed)).toBe(true);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});

describe('OUT-4 Codex output completed after it settles, across a crash', () => {
  let fx: Awaited<ReturnType<typeof startCodexRuntime>>;
  beforeAll(async () => {
    // Lost deltas, no aggregate, and Codex never answers the saved-copy read: the runtime dies with it pending.
    fx = await startCodexRuntime({ dropEvery: 3, dropAggregate: true, holdSavedReads: true });
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    fx?.client.close();
    await fx?.runtime.stopIfRunning();
    await fx?.model.close();
  });

  it(
    "OUT-4 a runtime killed before it read Codex's saved copy reads it after the restart: the row becomes byte-exact, generation 2, sourceIncomplete false",
    async () => {
      const { runtime, steps } = fx;
      const parts = Array.from({ length: 6 }, (_, i) =>
        writeSeededLines(path.join(runtime.projectDir, `part${i}.txt`), 9 * KiB, `crash${i}`),
      );
      const printed = Buffer.concat(parts);
      const sessionId = await createFullAccessCodexSession(fx.client);
      steps.push({ command: 'for i in 0 1 2 3 4 5; do cat part$i.txt; sleep 0.3; done' });
      const sent = await sendAndWait(fx.client, sessionId, 'Print the parts');
      const { commandId } = await commandRowWhen(fx.client, sessionId, sent.runId, () => true);
      const settled = await logLine(runtime, 'command output settled', commandId);
      expect(Number(field(settled, 'streamedBytes'))).toBeLessThan(printed.length);
      // The saved copy was asked for and never answered: nothing was applied before the kill.
      expect(runtime.output()).not.toContain(' command output saved copy ');

      await runtime.kill();
      fx.runtime = await runtime.restart({
        env: { HBCODE_CODEX_BIN: agents.codexBin, HBCODE_CODEX_CONFIG_TOML: codexConfigToml(fx.model.url) },
      });
      fx.client = await fx.runtime.connect();
      const row = await commandRowWhen(fx.client, sessionId, sent.runId, (r) => r.generation === 2);
      expect(row).toMatchObject({
        status: 'exited',
        exitCode: 0,
        complete: true,
        sourceIncomplete: false,
        byteLength: printed.length,
      });
      expect((await readWholeOutput(fx.client, sessionId, row)).equals(printed)).toBe(true);
      const saved = await logLine(fx.runtime, 'command output saved copy', commandId);
      expect(field(saved, 'action')).toBe('replace');
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
