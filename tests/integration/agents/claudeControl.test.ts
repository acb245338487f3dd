import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { Approval } from '../../../lib/protocol/agents';
import type { TimelineRow } from '../../../lib/protocol/rows';
import { DECLINED_MESSAGE } from '../../../server/runtime/agents/claude/claudePermissions';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { createAgentSession, messageState, waitForRows } from '../../fixtures/agentSessions';
import { askColourStep, toolResultsSent, writeFileStep } from '../../fixtures/claudeControlScenario';
import { claudeEnv, claudeTurnScript, type ClaudeStep } from '../../fixtures/fakeClaudeModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { waitUntil } from '../../fixtures/waitUntil';

describe('Claude approvals, questions and Stop through the runtime', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let phone: RpcClient;
  let laptop: RpcClient;
  let configDir: string;
  const steps: ClaudeStep[] = [];
  const seenByLaptop: Approval[] = [];

  beforeAll(async () => {
    const agents = installedAgents();
    model = await startFakeModelServer(claudeTurnScript(() => steps.shift() ?? { message: 'Nothing to do.' }));
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-config-'));
    runtime = await startRuntimeProcess({ env: claudeEnv(model.url, configDir, agents.claudeBin) });
    phone = await runtime.connect();
    laptop = await runtime.connect();
    laptop.onNotification('approval.changed', (params) => seenByLaptop.push(params.approval));
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    phone?.close();
    laptop?.close();
    await runtime?.stop();
    await model?.close();
    if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
  });

  /** The one approval waiting in the session, as both devices see it. */
  async function waitingApproval(sessionId: string): Promise<Approval> {
    const approval = await waitUntil(
      async () => (await phone.call('approvals.list', { sessionId })).approvals[0] ?? false,
      'an approval waits in the session',
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    await waitUntil(
      () => seenByLaptop.some((a) => a.id === approval.id && a.decision === null),
      'the other device got the request',
      { timeoutMs: 30_000 },
    );
    return approval;
  }

  it(
    'ACC-4 a tool request reaches both devices; allow once runs it, a late answer is a conflict; deny refuses it with a message',
    async () => {
      const sessionId = await createAgentSession(phone, 'claude');
      steps.push(writeFileStep(path.join(runtime.projectDir, 'allowed.txt'), 'allowed\n'));
      const { runId } = await phone.call('chat.send', {
        sessionId,
        operationId: crypto.randomUUID(),
        text: 'Write allowed.txt',
      });
      const approval = await waitingApproval(sessionId);
      expect(approval).toMatchObject({ kind: 'tool', runId, decision: null });
      expect(approval.command).toContain('allowed.txt');
      expect(approval.detail).toContain('"content": "allowed\\n"');
      // The SDK's suggestions reach the card in words ("allow for this session" applies them).
      expect(approval.suggestions.length).toBeGreaterThan(0);
      expect(fs.existsSync(path.join(runtime.projectDir, 'allowed.txt'))).toBe(false);
      // It names the tool call it is about: that row (once shown) says "waiting for your approval".
      expect(approval.itemId).toMatch(/^toolu_/);

      const { approval: answered } = await laptop.call('approvals.answer', {
        sessionId,
        approvalId: approval.id,
        decision: 'accept',
      });
      expect(answered.decision).toBe('accept');
      await expect(
        phone.call('approvals.answer', { sessionId, approvalId: approval.id, decision: 'decline' }),
      ).rejects.toMatchObject({ code: 'conflict' });
      await waitForRows(phone, sessionId, (rows) => messageState(rows, runId) === 'done');
      expect(fs.readFileSync(path.join(runtime.projectDir, 'allowed.txt'), 'utf8')).toBe('allowed\n');
      const { rows } = await phone.call('sessions.timeline', { sessionId });
      expect(
        rows.some((row) => 'itemId' in row && row.itemId === approval.itemId),
        JSON.stringify(rows.map((r) => [r.kind, 'itemId' in r ? r.itemId : null])),
      ).toBe(true);

      steps.push(writeFileStep(path.join(runtime.projectDir, 'denied.txt'), 'denied\n'));
      const second = await phone.call('chat.send', {
        sessionId,
        operationId: crypto.randomUUID(),
        text: 'Write denied.txt',
      });
      const refused = await waitingApproval(sessionId);
      await phone.call('approvals.answer', { sessionId, approvalId: refused.id, decision: 'decline' });
      await expect(
        laptop.call('approvals.answer', { sessionId, approvalId: refused.id, decision: 'accept' }),
      ).rejects.toMatchObject({ code: 'conflict' });
      await waitForRows(phone, sessionId, (rows) => messageState(rows, second.runId) === 'done');
      expect(fs.existsSync(path.join(runtime.projectDir, 'denied.txt'))).toBe(false);
      expect(toolResultsSent(model.requests).some((text) => text.includes(DECLINED_MESSAGE))).toBe(true);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-4 allow for this session applies the suggestions: the same command in a later turn runs without asking, and no project setting is written',
    async () => {
      const sessionId = await createAgentSession(phone, 'claude');
      const made = path.join(runtime.projectDir, 'session-rule.txt');
      const command = 'touch session-rule.txt';
      steps.push({ command });
      const first = await phone.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: 'Append' });
      const approval = await waitingApproval(sessionId);
      expect(approval.suggestions.join('\n')).toContain('Allow Bash(');
      await laptop.call('approvals.answer', { sessionId, approvalId: approval.id, decision: 'acceptForSession' });
      await waitForRows(phone, sessionId, (rows) => messageState(rows, first.runId) === 'done');
      expect(fs.existsSync(made)).toBe(true);
      fs.rmSync(made);
      const asked = seenByLaptop.length;
      steps.push({ command });
      const second = await phone.call('chat.send', {
        sessionId,
        operationId: crypto.randomUUID(),
        text: 'Append again',
      });
      await waitForRows(phone, sessionId, (rows) => messageState(rows, second.runId) === 'done');
      expect(seenByLaptop.slice(asked)).toEqual([]);
      expect(fs.existsSync(made)).toBe(true);
      // The rule lives with the app session, not in the project's Claude settings.
      expect(fs.existsSync(path.join(runtime.projectDir, '.claude', 'settings.local.json'))).toBe(false);
      // Another session of the same project still asks.
      const other = await createAgentSession(phone, 'claude');
      steps.push({ command });
      await phone.call('chat.send', { sessionId: other, operationId: crypto.randomUUID(), text: 'Append here' });
      const again = await waitingApproval(other);
      await phone.call('approvals.answer', { sessionId: other, approvalId: again.id, decision: 'decline' });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-4 an AskUserQuestion reaches both devices as a question; the answer goes back to Claude; a late answer is a conflict',
    async () => {
      const sessionId = await createAgentSession(phone, 'claude');
      steps.push(askColourStep());
      const { runId } = await phone.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: 'Ask me' });
      const approval = await waitingApproval(sessionId);
      expect(approval.kind).toBe('question');
      expect(approval.questions).toEqual([
        {
          id: '0',
          header: 'Colour',
          question: 'Which colour should the button be?',
          options: [
            { label: 'Blue', description: 'The brand colour' },
            { label: 'Green', description: 'Calmer' },
          ],
          multiSelect: false,
          allowOther: true,
          secret: false,
        },
      ]);
      const { approval: answered } = await phone.call('approvals.answer', {
        sessionId,
        approvalId: approval.id,
        decision: 'accept',
        answers: { '0': ['Green'] },
      });
      expect(answered.answers).toEqual({ '0': ['Green'] });
      await expect(
        laptop.call('approvals.answer', {
          sessionId,
          approvalId: approval.id,
          decision: 'accept',
          answers: { '0': ['Blue'] },
        }),
      ).rejects.toMatchObject({ code: 'conflict' });
      await waitForRows(phone, sessionId, (rows) => messageState(rows, runId) === 'done');
      const results = toolResultsSent(model.requests);
      expect(
        results.some((text) => text.includes('Which colour should the button be?') && text.includes('Green')),
      ).toBe(true);
      expect(results.some((text) => text.includes('="Blue"'))).toBe(false);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-6 Stop ends a running Claude turn: the row says cancelled, and the message queued behind it then runs',
    async () => {
      const sessionId = await createAgentSession(phone, 'claude');
      steps.push({ hang: true });
      const first = await phone.call('chat.send', {
        sessionId,
        operationId: crypto.randomUUID(),
        text: 'Think for ever',
      });
      const second = await phone.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: 'Then this' });
      await waitForRows(
        phone,
        sessionId,
        (rows) => messageState(rows, first.runId) === 'running' && messageState(rows, second.runId) === 'queued',
      );
      // The hanging step was taken: the model request is in flight and the turn really runs.
      await waitUntil(() => steps.length === 0, 'the hanging model request arrived', { timeoutMs: 120_000 });
      steps.push({ message: 'Second answer.' });
      await phone.call('run.cancel', { sessionId, runId: first.runId });
      // The queued message's answer is Claude's own text row, from the live turn or its saved history (TL-3).
      const answered = (r: TimelineRow[]) => r.some((row) => row.kind === 'agentText' && row.text === 'Second answer.');
      const rows = await waitForRows(
        phone,
        sessionId,
        (r) => messageState(r, first.runId) === 'cancelled' && messageState(r, second.runId) === 'done' && answered(r),
      );
      expect(rows.filter((row) => row.kind === 'agentText' && row.text === 'Second answer.')).toHaveLength(1);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
