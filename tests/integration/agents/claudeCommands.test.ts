import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS } from '../../fixtures/agentPackages';
import { createAgentSession, sendAndWait } from '../../fixtures/agentSessions';
import { startClaudeRuntime, type ClaudeRuntime } from '../../fixtures/claudeRuntime';
import { claudeTurnScript, messagesUserText } from '../../fixtures/fakeClaudeModel';

/**
 * UX-10: a Claude session's slash commands are the ones Claude Code itself offers in the project
 * folder (the SDK's supportedCommands, asked through the agent host with no message sent): its
 * built-in ones and the project's own `.claude/commands/*.md`. The chosen command goes to Claude
 * as the prompt `/name args`, and Claude Code runs it: the model gets the command file's text.
 */
describe('UX-10 Claude slash commands through the real Claude Agent SDK', () => {
  let rig: ClaudeRuntime;

  beforeAll(async () => {
    rig = await startClaudeRuntime({ script: claudeTurnScript(() => ({ message: 'Notes written.' })) });
    const commands = path.join(rig.runtime.projectDir, '.claude', 'commands');
    fs.mkdirSync(commands, { recursive: true });
    fs.writeFileSync(
      path.join(commands, 'ship-notes.md'),
      '---\ndescription: Write the release notes\nargument-hint: <version>\n---\nWrite the release notes for version $ARGUMENTS of this project.\n',
    );
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await rig?.close();
  });

  it(
    'UX-10 agents.commands lists the project command with its description and hint, and a built-in one; a shell session has none',
    async () => {
      const { client } = rig;
      const sessionId = await createAgentSession(client, 'claude');
      const before = rig.model.requests.length;
      const { commands } = await client.call('agents.commands', { sessionId });
      const own = commands.find((c) => c.name === 'ship-notes');
      expect(own?.description).toContain('Write the release notes');
      expect(own?.argumentHint).toBe('<version>');
      expect(commands.find((c) => c.name === 'compact')?.description).toMatch(/\w/);
      expect(commands.some((c) => c.name === 'color')).toBe(true);
      expect(commands.some((c) => c.name.startsWith('__'))).toBe(false);
      // Listing sends the model nothing.
      expect(rig.model.requests.filter((r) => r.url.startsWith('/v1/messages') && r.method === 'POST').length).toBe(
        before,
      );

      const shell = await createAgentSession(client, 'shell');
      expect((await client.call('agents.commands', { sessionId: shell })).commands).toEqual([]);
      await expect(client.call('agents.commands', { sessionId: 'no-such-session' })).rejects.toMatchObject({
        code: 'not_found',
      });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'UX-10 a chosen command is sent as `/name args` and Claude Code hands the model its file with the arguments; commands bound to its terminal are offered no more',
    async () => {
      const { client } = rig;
      const sessionId = await createAgentSession(client, 'claude');
      await sendAndWait(client, sessionId, '/ship-notes 2.4.0');
      const sent = rig.model.requests
        .filter((r) => r.method === 'POST' && r.url.startsWith('/v1/messages'))
        .map(messagesUserText)
        .join('\n');
      expect(sent).toContain('Write the release notes for version 2.4.0 of this project.');

      // The turn's init message named the commands bound to Claude Code's own terminal: no longer offered.
      const { commands } = await client.call('agents.commands', { sessionId });
      expect(commands.some((c) => c.name === 'ship-notes')).toBe(true);
      expect(commands.some((c) => c.name === 'color')).toBe(false);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
