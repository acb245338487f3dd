import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AgentRunError } from '../../../server/runtime/agents/agentRunError';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { startClaudeAgentHarness, type ClaudeAgentHarness } from '../../fixtures/claudeAgentHarness';
import { toolResultsSent, writeFileStep } from '../../fixtures/claudeControlScenario';
import { PLAN_MODE_MESSAGE } from '../../../server/runtime/agents/claude/claudePermissions';
import { claudeEnv, claudeTurnScript, type ClaudeStep } from '../../fixtures/fakeClaudeModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { waitUntil } from '../../fixtures/waitUntil';

describe('Claude turns with session settings, steering and sign-in', () => {
  let model: FakeModelServer;
  let harness: ClaudeAgentHarness;
  let configDir: string;
  const steps: ClaudeStep[] = [];

  beforeAll(async () => {
    const agents = installedAgents();
    model = await startFakeModelServer(claudeTurnScript(() => steps.shift() ?? { message: 'Nothing to do.' }));
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-config-'));
    const env = claudeEnv(model.url, configDir, agents.claudeBin);
    // The hosts inherit this process's environment, as they inherit the runtime's.
    for (const [key, value] of Object.entries(env)) vi.stubEnv(key, value!);
    harness = startClaudeAgentHarness(env);
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    vi.unstubAllEnvs();
    harness?.close();
    await model?.close();
    if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
  });

  it(
    'ACC-9 a session in plan mode makes no change on disk',
    async () => {
      const sessionId = harness.newSession();
      const file = path.join(harness.projectDir, 'planned.txt');
      steps.push(writeFileStep(file, 'should not exist\n'));
      const turn = harness.startTurn(sessionId, 'Write planned.txt', { permissionMode: 'plan', model: null });
      await turn.done;
      expect(fs.existsSync(file)).toBe(false);
      expect(fs.readdirSync(harness.projectDir)).toEqual([]);
      expect(harness.published).toEqual([]);
      // Claude was told why, in the tool result it got back.
      expect(toolResultsSent(model.requests).some((text) => text.includes(PLAN_MODE_MESSAGE))).toBe(true);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-5 the session model reaches Claude Code',
    async () => {
      const sessionId = harness.newSession();
      const before = model.requests.length;
      await harness.startTurn(sessionId, 'Hi', { permissionMode: 'default', model: 'claude-test-model-7' }).done;
      const models = model.requests.slice(before).map((r) => (r.body as { model?: string } | null)?.model);
      expect(models).toContain('claude-test-model-7');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-6 a message sent while the turn runs steers it through streaming input',
    async () => {
      const sessionId = harness.newSession();
      const marker = path.join(harness.projectDir, 'steer-go');
      // A command that waits until the test has steered.
      steps.push({ command: `for i in $(seq 1 600); do [ -e ${marker} ] && break; sleep 0.1; done; echo waited` });
      const turn = harness.startTurn(sessionId, 'Wait for the marker');
      const approval = await waitUntil(
        () => harness.approvals.pending(sessionId)[0] ?? false,
        'Claude asks to run the command',
        { timeoutMs: 120_000 },
      );
      harness.approvals.answer(sessionId, approval.id, 'accept');
      let reached = false;
      const steerText = 'Also mention the steering word PAPAYA';
      await harness.agent.steer(
        sessionId,
        turn.runId,
        harness.steerMessage(sessionId, steerText, () => (reached = true)),
      );
      // Acknowledged is not delivered: the model has not been sent it yet.
      expect(reached).toBe(false);
      fs.writeFileSync(marker, '');
      await turn.done;
      expect(model.requests.some((r) => JSON.stringify(r.body).includes('PAPAYA'))).toBe(true);
      expect(reached).toBe(true);
      await expect(
        harness.agent.steer(sessionId, turn.runId, harness.steerMessage(sessionId, 'too late')),
      ).rejects.toMatchObject({ code: 'conflict' });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-3 a run of an account with no credentials fails with a message naming the cause and how to sign in',
    async () => {
      const { account } = { account: harness.agent.accounts.add('Work') };
      harness.agent.accounts.activate(account.id);
      vi.stubEnv('ANTHROPIC_API_KEY', '');
      try {
        const sessionId = harness.newSession();
        const failure = await harness.startTurn(sessionId, 'Hello').done.then(
          () => null,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(AgentRunError);
        expect(failure).toMatchObject({ code: 'claude_signed_out', action: 'claudeSignIn' });
        expect((failure as Error).message).toContain('not signed in for “Work”');
        expect((failure as Error).message).toContain(`CLAUDE_CONFIG_DIR=${account.folder} claude /login`);

        // ACC-2: an API key entered in the app signs the account in; Claude Code sends it.
        harness.agent.accounts.setApiKey(account.id, 'key-entered-in-the-app');
        const before = model.requests.length;
        const turn = harness.startTurn(sessionId, 'Hello again');
        await turn.done;
        expect(model.requests.slice(before).some((r) => r.headers['x-api-key'] === 'key-entered-in-the-app')).toBe(
          true,
        );
        // The account saved its conversation into the main folder, through its projects link.
        const saved = fs
          .readdirSync(path.join(configDir, 'projects'), { recursive: true, encoding: 'utf8' })
          .filter((f) => f.endsWith('.jsonl'));
        expect(saved.length).toBeGreaterThan(0);
        expect(fs.lstatSync(path.join(account.folder, 'projects')).isSymbolicLink()).toBe(true);
      } finally {
        vi.stubEnv('ANTHROPIC_API_KEY', 'test-key-not-a-secret');
        harness.agent.accounts.activate('default');
      }
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
