import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { CONVERSATION_TAKEN_MESSAGE } from '../../../server/runtime/agents/claude/claudeStore';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { createAgentSession, messageState, sendAndWait, waitForRows } from '../../fixtures/agentSessions';
import { claudeEnv, claudeTurnScript } from '../../fixtures/fakeClaudeModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { waitUntil } from '../../fixtures/waitUntil';

const APP_KEY = 'sk-entered-in-the-app-0123456789';

describe('Claude accounts, sign-in and saved conversations over the protocol', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let configDir: string;

  beforeAll(async () => {
    const agents = installedAgents();
    model = await startFakeModelServer(claudeTurnScript(() => ({ message: 'Hello from Claude.' })));
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-config-'));
    // No API key in the desktop's environment and no sign-in in the main folder: nobody is signed in.
    runtime = await startRuntimeProcess({
      env: { ...claudeEnv(model.url, configDir, agents.claudeBin), ANTHROPIC_API_KEY: undefined },
    });
    client = await runtime.connect();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    await model?.close();
    if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
  });

  it(
    'ACC-3 a Claude run with no credentials fails and says it is not signed in; ACC-2 an API key entered in the app signs it in; ACC-10 it is kept out of the database',
    async () => {
      const { accounts, activeAccountId } = await client.call('claude.accounts.list');
      expect(activeAccountId).toBe('default');
      expect(accounts).toEqual([
        expect.objectContaining({
          id: 'default',
          folder: configDir,
          active: true,
          hasApiKey: false,
          signInCommand: `CLAUDE_CONFIG_DIR=${configDir} claude /login`,
          lastStatus: null,
        }),
      ]);
      expect((await client.call('claude.accounts.status', { accountId: 'default' })).status).toMatchObject({
        state: 'signedOut',
      });
      // The list carries the last check, so the screen shows it at once while the next one runs.
      const [checked] = (await client.call('claude.accounts.list')).accounts;
      expect(checked!.lastStatus).toMatchObject({ status: { state: 'signedOut' }, checkedAt: expect.any(Number) });

      const sessionId = await createAgentSession(client, 'claude');
      const { runId } = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: 'Hello' });
      await waitForRows(client, sessionId, (rows) => messageState(rows, runId) === 'failed');
      await waitUntil(() => runtime.output().includes('Claude is not signed in for'), 'the failure names its cause', {
        timeoutMs: 30_000,
      });
      expect(runtime.output()).toContain(`claude /login`);
      expect(runtime.output()).not.toContain('exited with code 1');

      await client.call('claude.accounts.setApiKey', { accountId: 'default', apiKey: APP_KEY });
      // What the last check said was about the old key.
      expect((await client.call('claude.accounts.list')).accounts[0]!.lastStatus).toBeNull();
      expect((await client.call('claude.accounts.status', { accountId: 'default' })).status).toMatchObject({
        state: 'signedIn',
        source: 'ANTHROPIC_API_KEY',
      });
      const before = model.requests.length;
      await sendAndWait(client, sessionId, 'Hello again');
      expect(model.requests.slice(before).some((r) => r.headers['x-api-key'] === APP_KEY)).toBe(true);
      // SEC-4: the key never reaches the log. ACC-10: nor the database, its WAL or its index.
      expect(runtime.output()).not.toContain(APP_KEY);
      for (const name of ['hbcode.db', 'hbcode.db-wal', 'hbcode.db-shm']) {
        const file = path.join(runtime.dataDir, name);
        if (fs.existsSync(file)) expect(fs.readFileSync(file).includes(APP_KEY), name).toBe(false);
      }
      expect(fs.statSync(path.join(runtime.dataDir, 'claude', 'api-keys', 'default')).mode & 0o777).toBe(0o600);
      const { models } = await client.call('claude.models.list', {});
      expect(models.some((m) => m.isDefault)).toBe(true);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-8 saved conversations of the project are listed through the SDK, the open one marked; continuing it twice is refused',
    async () => {
      const sessionId = await createAgentSession(client, 'claude');
      await sendAndWait(client, sessionId, 'Remember the word KIWI');
      const { projects } = await client.call('projects.list');
      const { sessions } = await client.call('claude.sessions.list', { projectId: projects[0]!.id });
      const mine = sessions.filter((s) => s.openInSessionId === sessionId);
      expect(mine).toHaveLength(1);
      expect(mine[0]!.summary).toContain('KIWI');
      await expect(
        client.call('sessions.create', {
          projectId: projects[0]!.id,
          agent: 'claude',
          claudeSessionId: mine[0]!.claudeSessionId,
        }),
      ).rejects.toMatchObject({
        code: 'conflict',
        message: CONVERSATION_TAKEN_MESSAGE,
      });
      await client.call('sessions.delete', { sessionId });
      const after = await client.call('claude.sessions.list', { projectId: projects[0]!.id });
      expect(after.sessions.find((s) => s.claudeSessionId === mine[0]!.claudeSessionId)).toMatchObject({
        openInSessionId: null,
      });
      const continued = await createAgentSession(client, 'claude', mine[0]!.claudeSessionId);
      await sendAndWait(client, continued, 'What was the word?');
      expect(JSON.stringify(model.requests.at(-1)!.body)).toContain('KIWI');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-2 an added account is a folder with links; the active one survives a restart and runs use it; removal never follows a link',
    async () => {
      const { account } = await client.call('claude.accounts.add', { label: 'Work' });
      expect(account.folder).toBe(path.join(runtime.dataDir, 'claude', 'accounts', account.id));
      expect(fs.readlinkSync(path.join(account.folder, 'projects'))).toBe(path.join(configDir, 'projects'));
      expect(account.signInCommand).toBe(`CLAUDE_CONFIG_DIR=${account.folder} claude /login`);
      expect((await client.call('claude.accounts.status', { accountId: account.id })).status).toMatchObject({
        state: 'signedOut',
      });
      await client.call('claude.accounts.activate', { accountId: account.id });
      await client.call('claude.accounts.setApiKey', { accountId: account.id, apiKey: `${APP_KEY}-work` });

      client.close();
      runtime = await runtime.restart();
      client = await runtime.connect();
      const listed = await client.call('claude.accounts.list');
      expect(listed.activeAccountId).toBe(account.id);
      expect(listed.accounts.find((a) => a.id === account.id)).toMatchObject({
        label: 'Work',
        active: true,
        hasApiKey: true,
      });

      const sessionId = await createAgentSession(client, 'claude');
      const before = model.requests.length;
      await sendAndWait(client, sessionId, 'Hello from work');
      expect(model.requests.slice(before).some((r) => r.headers['x-api-key'] === `${APP_KEY}-work`)).toBe(true);
      // The run saved into the main folder through the link: history reads find it there.
      const { projects } = await client.call('projects.list');
      const { sessions } = await client.call('claude.sessions.list', { projectId: projects[0]!.id });
      expect(sessions.some((s) => s.openInSessionId === sessionId)).toBe(true);

      const planted = path.join(configDir, 'projects', 'planted.txt');
      fs.writeFileSync(planted, 'keep me');
      await client.call('claude.accounts.remove', { accountId: account.id });
      expect(fs.existsSync(account.folder)).toBe(false);
      expect(fs.readFileSync(planted, 'utf8')).toBe('keep me');
      expect((await client.call('claude.accounts.list')).activeAccountId).toBe('default');
      await expect(client.call('claude.accounts.activate', { accountId: account.id })).rejects.toMatchObject({
        code: 'not_found',
      });
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
