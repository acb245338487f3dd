import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installAgentPackages } from '../../../scripts/install-agents.mjs';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS } from '../../fixtures/agentPackages';
import { createAgentSession, sendAndWait } from '../../fixtures/agentSessions';
import { startClaudeRuntime, type ClaudeRuntime } from '../../fixtures/claudeRuntime';
import { claudeTurnScript } from '../../fixtures/fakeClaudeModel';
import { waitUntil } from '../../fixtures/waitUntil';

interface ClaudeSdk {
  renameSession(sessionId: string, title: string, options?: { dir?: string }): Promise<void>;
}

/**
 * UX-8: Claude's own title of a conversation. The conversation is renamed the way Claude Code's
 * /rename does it (the pinned SDK's renameSession, in the same Claude folder); after the next
 * turn the runtime reads the title through its agent host (getSessionInfo) and lists the session
 * under it, until the person renames the session in the app.
 */
describe("UX-8 the agent's own title: a Claude conversation's title, through the real SDK", () => {
  let rig: ClaudeRuntime;

  beforeAll(async () => {
    rig = await startClaudeRuntime({ script: claudeTurnScript(() => ({ message: 'Noted.' })) });
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await rig?.close();
  });

  it(
    "UX-8 a Claude conversation renamed in Claude Code lists its session under that title after the next turn; the person's rename wins",
    async () => {
      const { client, runtime, configDir } = rig;
      const sessionId = await createAgentSession(client, 'claude');
      const listed = async () => (await client.call('sessions.list')).sessions.find((s) => s.id === sessionId)!;
      await sendAndWait(client, sessionId, 'Plan the release');
      expect((await listed()).title).toBe('Plan the release');

      const { projects } = await client.call('projects.list');
      const saved = await client.call('claude.sessions.list', { projectId: projects[0]!.id });
      const conversation = saved.sessions.find((s) => s.openInSessionId === sessionId)!;
      const sdk = (await import(
        path.join(installAgentPackages(), 'node_modules', '@anthropic-ai', 'claude-agent-sdk', 'sdk.mjs')
      )) as ClaudeSdk;
      const before = process.env.CLAUDE_CONFIG_DIR;
      process.env.CLAUDE_CONFIG_DIR = configDir;
      try {
        await sdk.renameSession(conversation.claudeSessionId, 'Release plan', { dir: runtime.projectDir });
      } finally {
        if (before === undefined) delete process.env.CLAUDE_CONFIG_DIR;
        else process.env.CLAUDE_CONFIG_DIR = before;
      }

      await sendAndWait(client, sessionId, 'And the changelog');
      await waitUntil(
        async () => (await listed()).title === 'Release plan',
        "the session is listed under Claude's title",
        { timeoutMs: 60_000 },
      );
      await client.call('sessions.rename', { sessionId, title: 'Ship it' });
      expect((await listed()).title).toBe('Ship it');
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
