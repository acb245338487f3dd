import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { CommandRow } from '../../../lib/protocol/rows';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../../../lib/protocol/version';
import { RESULT_NOT_SAVED_MESSAGE } from '../../../server/runtime/agents/claude/claudeAgent';
import { CONVERSATION_TAKEN_MESSAGE } from '../../../server/runtime/agents/claude/claudeStore';
import { writeSeededLines } from '../../fixtures/agentOutput';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { createAgentSession, sendAndWait, waitForRows, messageState } from '../../fixtures/agentSessions';
import { acceptEveryApproval } from '../../fixtures/claudeControlScenario';
import { claudeEnv, claudeTurnScript, type ClaudeStep } from '../../fixtures/fakeClaudeModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { readWholeOutput } from '../../fixtures/sessionHelpers';
import { waitUntil } from '../../fixtures/waitUntil';

/** Files under the test's own Claude folder (the test may look; the runtime never does). */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile());
}

/** The native id of the one conversation Claude saved, from its transcript's file name. */
function onlyConversationId(configDir: string): string {
  const transcripts = filesUnder(path.join(configDir, 'projects')).filter(
    (f) => f.endsWith('.jsonl') && !f.includes(`${path.sep}subagents${path.sep}`),
  );
  expect(transcripts).toHaveLength(1);
  return path.basename(transcripts[0]!, '.jsonl');
}

/**
 * What the big command prints: past two 256 KiB slices (OUT-7), so a whole read takes three and
 * Claude Code persists the result to a file of its own. More bytes prove nothing more and cost
 * Claude Code, its host and the transcript seconds per MiB.
 */
const BIG_BYTES = 2 * MAX_COMMAND_OUTPUT_RANGE_BYTES + 777;

describe('Claude sessions through the Agent SDK in a host process', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let configDir: string;
  let env: NodeJS.ProcessEnv;
  const steps: ClaudeStep[] = [];

  beforeAll(async () => {
    const agents = installedAgents();
    model = await startFakeModelServer(claudeTurnScript(() => steps.shift() ?? { message: 'Nothing to run.' }));
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-config-'));
    // TL-5: Claude runs under the user's own permission rules; these tests' user allows Bash.
    fs.writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash'] } }));
    env = claudeEnv(model.url, configDir, agents.claudeBin);
    runtime = await startRuntimeProcess({ env });
    client = await runtime.connect();
    acceptEveryApproval(client);
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    await model?.close();
    if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
  });

  it(
    'OUT-7 a Claude command that prints past two slices (over 512 KiB) reads back whole through the agent host in 256 KiB slices, also after a restart; a second session cannot open the conversation; delete leaves the transcript (STO-4)',
    async () => {
      const { agents } = await client.call('agents.list');
      expect(agents.find((a) => a.agent === 'claude')).toMatchObject({ available: true });
      const printed = writeSeededLines(path.join(runtime.projectDir, 'big.txt'), BIG_BYTES, 'claude');
      const sessionId = await createAgentSession(client, 'claude');
      steps.push({ command: 'cat big.txt' });
      const { runId, rows, commands } = await sendAndWait(client, sessionId, 'Print big.txt');
      expect(commands).toHaveLength(1);
      const row: CommandRow = commands[0]!;
      // The row is a pointer and a size: Claude persisted the result whole to a file of its own.
      expect(row).toMatchObject({
        status: 'exited',
        exitCode: 0,
        byteLength: printed.length,
        generation: 1,
        complete: true,
        sourceIncomplete: false,
        outputSource: 'agent',
        command: 'cat big.txt',
      });
      expect((await readWholeOutput(client, sessionId, row)).equals(printed)).toBe(true);
      // The closing text is Claude's own saved row of this run (TL-4).
      expect(rows.find((r) => r.kind === 'agentText' && r.runId === runId)).toMatchObject({
        text: 'Done.',
        source: 'saved',
      });
      // No output byte entered the runtime's own store (OUT-7).
      const outputsDir = path.join(runtime.dataDir, 'command-outputs');
      expect(fs.existsSync(outputsDir) ? fs.readdirSync(outputsDir) : []).toEqual([]);
      // A slice from the middle, across a slice boundary, and another session may not read it (OUT-5).
      const midway = MAX_COMMAND_OUTPUT_RANGE_BYTES - 500;
      const middle = await client.call('run.chatCommandOutputRead', {
        appSessionId: sessionId,
        runId: row.runId,
        commandId: row.commandId,
        generation: 1,
        offset: midway,
        length: 1000,
      });
      expect(Buffer.from(middle.dataBase64, 'base64').equals(printed.subarray(midway, midway + 1000))).toBe(true);
      expect(middle).toMatchObject({ availableBytes: printed.length, complete: true, sourceIncomplete: false });

      // After a restart the row and every byte are still there. Compared once the live rows are
      // reconciled with the saved conversation (TL-3): Claude saves no turn end, so that live row goes.
      const reconciled = await waitForRows(client, sessionId, (r) =>
        r.every((x) => !('source' in x) || x.source === 'saved'),
      );
      client.close();
      runtime = await runtime.restart();
      client = await runtime.connect();
      acceptEveryApproval(client);
      const after = await client.call('sessions.timeline', { sessionId });
      expect(after.rows).toEqual(reconciled);
      // A new runtime keeps nothing: the first slice after the restart goes to the host. The last one ends the output.
      const lastOffset = printed.length - 1000;
      const tail = await client.call('run.chatCommandOutputRead', {
        appSessionId: sessionId,
        runId: row.runId,
        commandId: row.commandId,
        generation: 1,
        offset: lastOffset,
        length: 4096,
      });
      expect(Buffer.from(tail.dataBase64, 'base64').equals(printed.subarray(lastOffset))).toBe(true);

      // One app session per Claude conversation.
      const nativeId = onlyConversationId(configDir);
      const { projects } = await client.call('projects.list');
      await expect(
        client.call('sessions.create', { projectId: projects[0]!.id, agent: 'claude', claudeSessionId: nativeId }),
      ).rejects.toMatchObject({
        code: 'conflict',
        message: CONVERSATION_TAKEN_MESSAGE,
      });
      const other = await createAgentSession(client, 'claude');
      await expect(
        client.call('run.chatCommandOutputRead', {
          appSessionId: other,
          runId: row.runId,
          commandId: row.commandId,
          generation: 1,
          offset: 0,
          length: 10,
        }),
      ).rejects.toMatchObject({ code: 'conflict' });

      // STO-4: deleting the session leaves Claude's transcript and result files as they were, and a new session continues it.
      const claudeFiles = filesUnder(configDir).filter((f) => f.includes(`${path.sep}projects${path.sep}`));
      const before = claudeFiles.map((f) => fs.readFileSync(f));
      await client.call('sessions.delete', { sessionId });
      expect(claudeFiles.map((f) => fs.readFileSync(f))).toEqual(before);
      const continued = await createAgentSession(client, 'claude', nativeId);
      steps.push({ command: 'echo continued' });
      const next = await sendAndWait(client, continued, 'Continue');
      // Claude keeps a small result as its text; it trims the trailing newline.
      expect((await readWholeOutput(client, continued, next.commands[0]!)).toString()).toBe('continued');
      const lastRequest = model.requests.at(-1)!;
      expect(JSON.stringify(lastRequest.body)).toContain('Print big.txt');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'OUT-7 a result the saved conversation no longer holds says so; a failed command keeps its exit code',
    async () => {
      const sessionId = await createAgentSession(client, 'claude');
      steps.push({ command: 'head -c 40000 big.txt; exit 3' });
      const { commands } = await sendAndWait(client, sessionId, 'Fail loudly');
      const row = commands[0]!;
      expect(row).toMatchObject({ status: 'exited', exitCode: 3, outputSource: 'agent' });
      const first = await client.call('run.chatCommandOutputRead', {
        appSessionId: sessionId,
        runId: row.runId,
        commandId: row.commandId,
        generation: 1,
        offset: 0,
        length: 16,
      });
      expect(Buffer.from(first.dataBase64, 'base64').toString()).toMatch(/^Exit code 3\n/);
      // The app reads with raw binary frames; a read through the agent answers the same bytes that way.
      const binary = await client.callBinary('run.chatCommandOutputRead', {
        appSessionId: sessionId,
        runId: row.runId,
        commandId: row.commandId,
        generation: 1,
        offset: 0,
        length: 16,
      });
      expect(binary.result).toMatchObject({ dataBase64: '', byteCount: 16, availableBytes: first.availableBytes });
      expect(Buffer.from(binary.data).equals(Buffer.from(first.dataBase64, 'base64'))).toBe(true);
      // A long successful result Claude persisted to its own file; without that file the saved conversation no longer holds it.
      const resultFiles = () => filesUnder(configDir).filter((f) => f.includes(`${path.sep}tool-results${path.sep}`));
      const earlier = new Set(resultFiles());
      steps.push({ command: 'cat big.txt' });
      const persisted = (await sendAndWait(client, sessionId, 'Print it again')).commands[0]!;
      const mine = resultFiles().filter((f) => !earlier.has(f));
      expect(mine).toHaveLength(1);
      // Read once first, so the runtime keeps the result whole: the copy must not outlive its file.
      const kept = await client.call('run.chatCommandOutputRead', {
        appSessionId: sessionId,
        runId: persisted.runId,
        commandId: persisted.commandId,
        generation: 1,
        offset: 0,
        length: 16,
      });
      expect(kept.availableBytes).toBe(persisted.byteLength);
      const twice = await client.call('run.chatCommandOutputRead', {
        appSessionId: sessionId,
        runId: persisted.runId,
        commandId: persisted.commandId,
        generation: 1,
        offset: 100,
        length: 16,
      });
      expect(twice.availableBytes).toBe(persisted.byteLength);
      fs.rmSync(mine[0]!);
      await expect(
        client.call('run.chatCommandOutputRead', {
          appSessionId: sessionId,
          runId: persisted.runId,
          commandId: persisted.commandId,
          generation: 1,
          offset: 0,
          length: 16,
        }),
      ).rejects.toMatchObject({ code: 'not_found', message: RESULT_NOT_SAVED_MESSAGE });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'SES-5 SES-9 TL-3 cancelling a Claude run stops its Claude Code and the command it runs, whose row ends cancelled; the host stays',
    async () => {
      const sessionId = await createAgentSession(client, 'claude');
      // A marker no other process has, so the test can tell whether the command still runs.
      const marker = `sleep 1${crypto.randomInt(100, 999)}.25`;
      steps.push({ command: `echo started; ${marker}` });
      const asked = model.requests.length;
      const { runId } = await client.call('chat.send', {
        sessionId,
        operationId: crypto.randomUUID(),
        text: 'Wait a long time',
      });
      const running = () =>
        execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
          .split('\n')
          .some((line) => line.startsWith(marker));
      await waitUntil(() => model.requests.length > asked && running(), 'Claude starts the command', {
        timeoutMs: 120_000,
        intervalMs: 100,
      });
      await client.call('run.cancel', { sessionId, runId });
      const rows = await waitForRows(client, sessionId, (r) => messageState(r, runId) === 'cancelled');
      // TL-3: the command's row was made when Claude asked for it; the Stop ends it cancelled.
      expect(rows.filter((r) => r.kind === 'command')).toEqual([
        expect.objectContaining({ command: `echo started; ${marker}`, status: 'cancelled' }),
      ]);
      await waitUntil(() => !running(), 'the cancelled command is gone', { intervalMs: 200 });
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
