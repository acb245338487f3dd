import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { RecentConversation } from '../../../lib/protocol/agents';
import type { TimelineRow } from '../../../lib/protocol/rows';
import {
  AGENT_INSTALL_TIMEOUT_MS,
  AGENT_TEST_TIMEOUT_MS,
  installedAgents,
  type InstalledAgents,
} from '../../fixtures/agentPackages';
import { sendAndWait, waitForRows } from '../../fixtures/agentSessions';
import { claudeEnv, claudeTurnScript } from '../../fixtures/fakeClaudeModel';
import { codexConfigToml, codexTurnScript, responsesInput } from '../../fixtures/fakeCodexModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { claudeInTerminal, codexExecInTerminal } from '../../fixtures/terminalConversations';
import { ownCodexHome, type OwnCodexHome } from '../../fixtures/codexOwnHome';

/** The texts of the user and agent rows of a timeline, in order. */
const conversationTexts = (rows: TimelineRow[]) =>
  rows.flatMap((r) => (r.kind === 'userText' || r.kind === 'agentText' ? [`${r.kind}: ${r.text}`] : []));

/**
 * ACC-11: conversations the agents' own command-line programs saved, outside the app, against
 * the fake model servers: listed for the project with their first prompt, time and size, and
 * opened in a new session with their history, which the next turn continues.
 */
describe('ACC-11 continuing a conversation started in a terminal', () => {
  let agents: InstalledAgents;
  let claudeModel: FakeModelServer;
  let codexModel: FakeModelServer;
  let claudeFolder: string;
  /** The person's own Codex home (their `~/.codex`), where `codex` in their terminal saves. */
  let own: OwnCodexHome;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let projectId: string;
  const claudeReplies: string[] = [];
  const codexReplies: string[] = [];

  beforeAll(async () => {
    agents = installedAgents();
    claudeModel = await startFakeModelServer(
      claudeTurnScript(() => ({ message: claudeReplies.shift() ?? 'Nothing more.' })),
    );
    codexModel = await startFakeModelServer(
      codexTurnScript(() => ({ message: codexReplies.shift() ?? 'Nothing more.' })),
    );
    claudeFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-terminal-'));
    own = ownCodexHome();
    runtime = await startRuntimeProcess({
      env: {
        ...claudeEnv(claudeModel.url, claudeFolder, agents.claudeBin),
        HBCODE_CODEX_BIN: agents.codexBin,
        HBCODE_CODEX_CONFIG_TOML: codexConfigToml(codexModel.url),
        CODEX_HOME: own.home,
      },
    });
    client = await runtime.connect();
    projectId = (await client.call('projects.list')).projects[0]!.id;
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    await claudeModel?.close();
    await codexModel?.close();
    if (claudeFolder) fs.rmSync(claudeFolder, { recursive: true, force: true });
    own?.remove();
  });

  async function recent(agent: RecentConversation['agent']): Promise<RecentConversation[]> {
    return (await client.call('agents.recentConversations', { projectDirectory: runtime.projectDir, agent }))
      .conversations;
  }

  it(
    'ACC-11 a Claude conversation that `claude -p` saved is listed with its first prompt, time and size, and opens with its history',
    async () => {
      const startedAt = Date.now();
      expect((await recent('claude')).some((c) => c.firstPrompt === 'Remember the terminal word')).toBe(false);
      claudeReplies.push('The terminal word is heron.');
      // Claude Code itself, as a person runs it in a terminal in the project folder, with the same Claude folder.
      await claudeInTerminal({
        claudeBin: agents.claudeBin,
        modelUrl: claudeModel.url,
        configDir: claudeFolder,
        cwd: runtime.projectDir,
        prompt: 'Remember the terminal word',
      });

      const listed = (await recent('claude')).find((c) => c.firstPrompt === 'Remember the terminal word');
      expect(listed).toMatchObject({
        agent: 'claude',
        openInSessionId: null,
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      expect(listed!.title.length).toBeGreaterThan(0);
      expect(listed!.sizeBytes).toBeGreaterThan(0);
      expect(listed!.updatedAt).toBeGreaterThanOrEqual(startedAt - 1000);

      const { session } = await client.call('sessions.create', {
        projectId,
        agent: 'claude',
        claudeSessionId: listed!.id,
      });
      const rows = await waitForRows(client, session.id, (r) => conversationTexts(r).length >= 2);
      expect(conversationTexts(rows)).toEqual([
        'userText: Remember the terminal word',
        'agentText: The terminal word is heron.',
      ]);
      expect((await recent('claude')).find((c) => c.id === listed!.id)?.openInSessionId).toBe(session.id);

      // The next turn continues it: the model is sent the terminal turn with the new message.
      claudeReplies.push('It was heron.');
      await sendAndWait(client, session.id, 'Which word was it?');
      const last = JSON.stringify(claudeModel.requests.at(-1)!.body);
      expect(last).toContain('Remember the terminal word');
      expect(last).toContain('Which word was it?');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-11 a Codex thread that `codex exec` saved in the profile is listed with its first prompt, time and size, and opens with its history',
    async () => {
      const startedAt = Date.now();
      const [profile] = (await client.call('codex.profiles.list')).profiles;
      // Listing first starts the profile's app-server, which makes its home; nothing is saved there yet.
      expect((await recent('codex')).some((c) => c.firstPrompt?.includes('Remember the exec word'))).toBe(false);
      codexReplies.push('The exec word is otter.');
      // `codex exec` itself, in the project folder, with the profile's home and the same configuration as the runtime's app-server.
      await codexExecInTerminal({
        codexBin: agents.codexBin,
        modelUrl: codexModel.url,
        dataDir: runtime.dataDir,
        profileId: profile!.id,
        cwd: runtime.projectDir,
        prompt: 'Remember the exec word',
      });

      const listed = (await recent('codex')).find((c) => c.firstPrompt?.includes('Remember the exec word'));
      expect(listed).toMatchObject({ agent: 'codex', openInSessionId: null });
      expect(listed!.sizeBytes).toBeGreaterThan(0);
      expect(listed!.updatedAt).toBeGreaterThanOrEqual(startedAt - 1000);

      const { session } = await client.call('sessions.create', {
        projectId,
        agent: 'codex',
        codexThreadId: listed!.id,
      });
      const rows = await waitForRows(client, session.id, (r) => conversationTexts(r).length >= 2);
      expect(conversationTexts(rows)).toEqual([
        'userText: Remember the exec word',
        'agentText: The exec word is otter.',
      ]);
      expect((await recent('codex')).find((c) => c.id === listed!.id)?.openInSessionId).toBe(session.id);

      codexReplies.push('It was otter.');
      await sendAndWait(client, session.id, 'Which exec word was it?');
      const input = JSON.stringify(responsesInput(codexModel.requests.at(-1)!));
      expect(input).toContain('Remember the exec word');
      expect(input).toContain('Which exec word was it?');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "ACC-11 a Codex thread that `codex exec` saved in the person's own Codex home is listed, opens with its history and goes on in the profile, the person's file untouched",
    async () => {
      const startedAt = Date.now();
      codexReplies.push('The home word is badger.');
      // `codex exec` as the person runs it in their terminal: their own CODEX_HOME, not the app's profile.
      await own.exec({ modelUrl: codexModel.url, cwd: runtime.projectDir, prompt: 'Remember the home word' });
      const sessions = path.join(own.home, 'sessions');
      const [personFile] = fs
        .readdirSync(sessions, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => path.join(sessions, f));
      const personBytes = fs.readFileSync(personFile!);
      // Another folder's conversation of the same home is not this project's.
      const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-elsewhere-'));
      codexReplies.push('Elsewhere.');
      await own.exec({ modelUrl: codexModel.url, cwd: elsewhere, prompt: 'Remember the other folder' });

      const conversations = await recent('codex');
      expect(conversations.some((c) => c.firstPrompt?.includes('Remember the other folder'))).toBe(false);
      const listed = conversations.find((c) => c.firstPrompt?.includes('Remember the home word'));
      expect(listed).toMatchObject({
        agent: 'codex',
        ownCodexHome: true,
        openInSessionId: null,
        sizeBytes: personBytes.length,
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      expect(listed!.updatedAt).toBeGreaterThanOrEqual(startedAt - 1000);

      const { session } = await client.call('sessions.create', {
        projectId,
        agent: 'codex',
        codexThreadId: listed!.id,
        title: listed!.title,
      });
      const rows = await waitForRows(client, session.id, (r) => conversationTexts(r).length >= 2);
      expect(conversationTexts(rows)).toEqual([
        'userText: Remember the home word',
        'agentText: The home word is badger.',
      ]);
      // Now the profile's thread, continued by that session; listed once.
      const again = (await recent('codex')).filter((c) => c.id === listed!.id);
      expect(again).toEqual([expect.objectContaining({ ownCodexHome: false, openInSessionId: session.id })]);

      codexReplies.push('It was badger.');
      await sendAndWait(client, session.id, 'Which home word was it?');
      const input = JSON.stringify(responsesInput(codexModel.requests.at(-1)!));
      expect(input).toContain('Remember the home word');
      expect(input).toContain('Which home word was it?');
      // The person's own file is as their terminal left it.
      expect(fs.readFileSync(personFile!).equals(personBytes)).toBe(true);
      fs.rmSync(elsewhere, { recursive: true, force: true });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it('ACC-11 a folder that is not a project is refused', async () => {
    await expect(
      client.call('agents.recentConversations', { projectDirectory: os.tmpdir(), agent: 'claude' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
