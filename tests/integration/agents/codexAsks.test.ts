import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { Approval } from '../../../lib/protocol/agents';
import { EXPIRED_BY_RESTART } from '../../../server/runtime/agents/approvals';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { createAgentSession, messageState, waitForRows } from '../../fixtures/agentSessions';
import {
  askPermissionsStep,
  askUserStep,
  codexAsksConfigToml,
  elicitationReply,
  lookupStep,
  pickColorStep,
  toolOutputs,
} from '../../fixtures/codexAskScenario';
import { codexTurnScript, type CodexStep } from '../../fixtures/fakeCodexModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { waitUntil } from '../../fixtures/waitUntil';

/**
 * ACC-4 against the real Codex and the fake model: the three kinds Codex asks beyond commands and
 * file changes (questions, more permissions, an MCP server's form) reach every device, the first
 * answer goes back to Codex and on to the model or the MCP server, and a later one is `conflict`.
 */
describe('Codex questions, permissions and MCP forms answered through the protocol', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let other: RpcClient;
  let outside: string;
  const steps: CodexStep[] = [];
  const afterOutput: CodexStep[] = [];

  beforeAll(async () => {
    const agents = installedAgents();
    // Outside every root the workspace-write sandbox lets commands write to (the project, the temp folders).
    outside = fs.mkdtempSync(path.join(os.homedir(), '.hbcode-codex-grant-'));
    model = await startFakeModelServer(
      codexTurnScript(
        () => steps.shift() ?? { message: 'Nothing to ask.' },
        'Done.',
        () => afterOutput.shift(),
      ),
    );
    runtime = await startRuntimeProcess({
      env: { HBCODE_CODEX_BIN: agents.codexBin, HBCODE_CODEX_CONFIG_TOML: codexAsksConfigToml(model.url) },
    });
    client = await runtime.connect();
    other = await runtime.connect();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    other?.close();
    await runtime?.stop();
    await model?.close();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  /** Sends `step` as the model's answer to a new message; resolves once both devices list what Codex asked. */
  async function askedOnBothDevices(step: CodexStep): Promise<{ sessionId: string; runId: string; asked: Approval }> {
    const sessionId = await createAgentSession(client, 'codex');
    steps.push(step);
    const { runId } = await client.call('chat.send', {
      sessionId,
      operationId: crypto.randomUUID(),
      text: 'Ask me first',
    });
    const listed = async (device: RpcClient) =>
      waitUntil(
        async () =>
          (await device.call('approvals.list', { sessionId })).approvals.find((a) => a.decision === null && !a.expired),
        'the request reaches the device',
        { timeoutMs: 90_000, intervalMs: 100 },
      );
    const [asked, seenByOther] = await Promise.all([listed(client), listed(other)]);
    expect(seenByOther).toEqual(asked);
    expect(asked.runId).toBe(runId);
    return { sessionId, runId, asked };
  }

  /** The other device answers first; the late answer from this one is a conflict; the turn ends. */
  async function answerOnOtherThenLate(
    sessionId: string,
    runId: string,
    asked: Approval,
    decision: 'accept' | 'decline',
    answers?: Record<string, string[]>,
  ): Promise<void> {
    const { approval } = await other.call('approvals.answer', {
      sessionId,
      approvalId: asked.id,
      decision,
      ...(answers ? { answers } : {}),
    });
    expect(approval.decision).toBe(decision);
    await expect(
      client.call('approvals.answer', {
        sessionId,
        approvalId: asked.id,
        decision: decision === 'accept' ? 'decline' : 'accept',
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
    await waitForRows(client, sessionId, (r) => messageState(r, runId) === 'done');
    expect((await client.call('approvals.list', { sessionId })).approvals).toEqual([]);
  }

  const lastToolOutput = () => toolOutputs(model).at(-1) ?? '';

  it(
    'ACC-4 request_user_input: the questions reach both devices, the chosen answer reaches the model, the late answer is a conflict',
    async () => {
      const { sessionId, runId, asked } = await askedOnBothDevices(askUserStep());
      expect(asked).toMatchObject({ kind: 'question', command: 'Which database should the service use?' });
      expect(asked.questions).toEqual([
        {
          id: 'database',
          header: 'Database',
          question: 'Which database should the service use?',
          options: [
            { label: 'SQLite (Recommended)', description: 'One file, no server.' },
            { label: 'Postgres', description: 'A server to run.' },
          ],
          multiSelect: false,
          allowOther: true,
          secret: false,
        },
      ]);
      await answerOnOtherThenLate(sessionId, runId, asked, 'accept', { database: ['Postgres'] });
      expect(JSON.parse(lastToolOutput())).toEqual({ answers: { database: { answers: ['Postgres'] } } });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-4 request_user_input declined: the model is told the user gave no answer',
    async () => {
      const { sessionId, runId, asked } = await askedOnBothDevices(askUserStep());
      await answerOnOtherThenLate(sessionId, runId, asked, 'decline');
      expect(JSON.parse(lastToolOutput())).toEqual({ answers: {} });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-4 request_permissions: the asked paths and network reach both devices; granted, the model is told so and its next command may write there',
    async () => {
      const target = path.join(outside, 'granted.txt');
      afterOutput.push({ command: `echo granted > ${target}` });
      const { sessionId, runId, asked } = await askedOnBothDevices(askPermissionsStep(outside));
      expect(asked).toMatchObject({
        kind: 'permissions',
        command: 'More permissions: network, fileSystem',
        reason: 'The build writes its cache outside the project.',
      });
      expect(asked.detail).toBe(`Network access\nWrite: ${outside}`);
      await answerOnOtherThenLate(sessionId, runId, asked, 'accept');
      // The grant is the tool output before the command's own.
      expect(JSON.parse(toolOutputs(model).at(-2)!)).toEqual({
        permissions: { network: { enabled: true }, file_system: { write: [outside] } },
        scope: 'turn',
      });
      expect(fs.readFileSync(target, 'utf8')).toBe('granted\n');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-4 request_permissions allowed for the session: a command of the next turn may write there too',
    async () => {
      const { sessionId, runId, asked } = await askedOnBothDevices(askPermissionsStep(outside));
      await other.call('approvals.answer', { sessionId, approvalId: asked.id, decision: 'acceptForSession' });
      await waitForRows(client, sessionId, (r) => messageState(r, runId) === 'done');
      expect(JSON.parse(lastToolOutput())).toMatchObject({ scope: 'session' });
      const target = path.join(outside, 'next-turn.txt');
      steps.push({ command: `echo next-turn > ${target}` });
      const next = await client.call('chat.send', {
        sessionId,
        operationId: crypto.randomUUID(),
        text: 'Write it now',
      });
      await waitForRows(client, sessionId, (r) => messageState(r, next.runId) === 'done');
      expect(fs.readFileSync(target, 'utf8')).toBe('next-turn\n');
      expect((await client.call('approvals.list', { sessionId })).approvals).toEqual([]);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-4 request_permissions declined: nothing is granted, and the next command cannot write there',
    async () => {
      const target = path.join(outside, 'refused.txt');
      afterOutput.push({ command: `echo refused > ${target}` });
      const { sessionId, runId, asked } = await askedOnBothDevices(askPermissionsStep(outside));
      expect(asked.kind).toBe('permissions');
      await answerOnOtherThenLate(sessionId, runId, asked, 'decline');
      expect(JSON.parse(toolOutputs(model).at(-2)!)).toEqual({
        permissions: { network: null, file_system: null },
        scope: 'turn',
      });
      expect(fs.existsSync(target)).toBe(false);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "ACC-4 an MCP server's form reaches both devices; the answers reach the MCP server typed as its schema says",
    async () => {
      const { sessionId, runId, asked } = await askedOnBothDevices(pickColorStep('the roof'));
      expect(asked).toMatchObject({
        kind: 'question',
        command: 'Pick a color for the roof',
        reason: 'Asked by the MCP server asker',
      });
      // `count` is outside the form's `required` list: it may stay empty.
      expect(
        asked.questions.map((q) => ({
          id: q.id,
          options: q.options.map((o) => o.label),
          allowOther: q.allowOther,
          required: q.required,
        })),
      ).toEqual([
        { id: 'color', options: ['red', 'green', 'blue'], allowOther: false, required: true },
        { id: 'count', options: [], allowOther: true, required: false },
      ]);
      await answerOnOtherThenLate(sessionId, runId, asked, 'accept', { color: ['green'], count: ['3'] });
      // The MCP server's tool answered with what it received; Codex passed it on to the model.
      expect(elicitationReply(lastToolOutput())).toEqual({ action: 'accept', content: { color: 'green', count: 3 } });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "ACC-4 an MCP server's form declined: the MCP server is told so",
    async () => {
      const { sessionId, runId, asked } = await askedOnBothDevices(pickColorStep('the door'));
      expect(asked.kind).toBe('question');
      await answerOnOtherThenLate(sessionId, runId, asked, 'decline');
      expect(elicitationReply(lastToolOutput())).toEqual({ action: 'decline' });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-4 Codex asks before an MCP tool runs: a tool approval on both devices; allowed for the session, the next call runs without asking',
    async () => {
      const { sessionId, runId, asked } = await askedOnBothDevices(lookupStep('walnut'));
      expect(asked).toMatchObject({
        kind: 'tool',
        command: 'lookup (MCP server tiny)',
        reason: 'Looks a word up in the test dictionary.',
        questions: [],
      });
      expect(JSON.parse(asked.detail!)).toEqual({ word: 'walnut' });
      const { approval } = await other.call('approvals.answer', {
        sessionId,
        approvalId: asked.id,
        decision: 'acceptForSession',
      });
      expect(approval.decision).toBe('acceptForSession');
      await expect(
        client.call('approvals.answer', { sessionId, approvalId: asked.id, decision: 'decline' }),
      ).rejects.toMatchObject({ code: 'conflict' });
      await waitForRows(client, sessionId, (r) => messageState(r, runId) === 'done');
      expect(lastToolOutput()).toContain('definition of walnut: a test word');
      // The next call of the same tool in this session: Codex remembers the grant and does not ask.
      steps.push(lookupStep('pecan'));
      const second = await client.call('chat.send', {
        sessionId,
        operationId: crypto.randomUUID(),
        text: 'Look it up again',
      });
      const outcome = await waitUntil(
        async () => {
          if ((await client.call('approvals.list', { sessionId })).approvals.length > 0) return 'asked again';
          return (
            messageState((await client.call('sessions.timeline', { sessionId })).rows, second.runId) === 'done' && 'ran'
          );
        },
        'the second call runs or asks',
        { timeoutMs: 120_000, intervalMs: 100 },
      );
      expect(outcome).toBe('ran');
      expect(lastToolOutput()).toContain('definition of pecan: a test word');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-4 an MCP tool call denied: the tool does not run and the model is told the user rejected it',
    async () => {
      const { sessionId, runId, asked } = await askedOnBothDevices(lookupStep('almond'));
      expect(asked.kind).toBe('tool');
      await answerOnOtherThenLate(sessionId, runId, asked, 'decline');
      expect(lastToolOutput()).toContain('user rejected MCP tool call');
      expect(lastToolOutput()).not.toContain('definition of almond');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-4 a pending question survives a reload and expires after a runtime restart',
    async () => {
      const { sessionId, asked } = await askedOnBothDevices(askUserStep());
      const reloaded = await runtime.connect();
      expect((await reloaded.call('approvals.list', { sessionId })).approvals).toEqual([asked]);
      reloaded.close();
      client.close();
      other.close();
      runtime = await runtime.restart();
      client = await runtime.connect();
      other = await runtime.connect();
      const [expired] = (await client.call('approvals.list', { sessionId })).approvals;
      expect(expired).toMatchObject({ id: asked.id, kind: 'question', decision: null, expired: EXPIRED_BY_RESTART });
      await expect(
        client.call('approvals.answer', {
          sessionId,
          approvalId: asked.id,
          decision: 'accept',
          answers: { database: ['Postgres'] },
        }),
      ).rejects.toMatchObject({ code: 'conflict' });
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
