import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { CodexProfile } from '../../../lib/protocol/accounts';
import type { MessageRow } from '../../../lib/protocol/rows';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { createAgentSession, sendAndWait } from '../../fixtures/agentSessions';
import { startFakeChatgptAuth, type FakeChatgptAuth } from '../../fixtures/fakeChatgptAuth';
import { bearerOf, codexConfigToml, codexTurnScript } from '../../fixtures/fakeCodexModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { waitUntil } from '../../fixtures/waitUntil';

/**
 * ACC-1, ACC-3, ACC-7 against the real Codex: its provider needs a sign-in, its ChatGPT sign-in
 * issuer and backend are a fake service on loopback (CODEX_APP_SERVER_LOGIN_ISSUER,
 * chatgpt_base_url), and the model is the fake Responses endpoint.
 */
describe('Codex profiles signed in from the app', () => {
  let model: FakeModelServer;
  let auth: FakeChatgptAuth;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let other: RpcClient;

  beforeAll(async () => {
    const agents = installedAgents();
    model = await startFakeModelServer(codexTurnScript(() => ({ message: 'Signed in and answering.' })));
    auth = await startFakeChatgptAuth();
    const toml = codexConfigToml(model.url, `chatgpt_base_url = "${auth.url}/backend-api/"`, {
      requiresOpenaiAuth: true,
    });
    runtime = await startRuntimeProcess({
      env: {
        HBCODE_CODEX_BIN: agents.codexBin,
        HBCODE_CODEX_CONFIG_TOML: toml,
        CODEX_APP_SERVER_LOGIN_ISSUER: auth.url,
        CODEX_CA_CERTIFICATE: auth.caCertificate,
      },
    });
    client = await runtime.connect();
    other = await runtime.connect();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    other?.close();
    await runtime?.stop();
    await model?.close();
    await auth?.close();
  });

  const profileOf = async (id: string) => (await client.call('codex.profiles.list')).profiles.find((p) => p.id === id)!;
  const failureOf = (rows: { kind: string }[], runId: string) =>
    (rows.find((r) => r.kind === 'message' && (r as MessageRow).runId === runId) as MessageRow).failure;

  it(
    'ACC-3 a run with a signed-out profile fails with the sign-in message, and the profile shows signed_out',
    async () => {
      const [profile] = (await client.call('codex.profiles.list')).profiles;
      expect(profile).toMatchObject({ name: 'Codex', status: 'signed_out' });
      const sessionId = await createAgentSession(client, 'codex');
      const { runId, rows } = await sendAndWait(client, sessionId, 'Hello?', 'failed');
      expect(failureOf(rows, runId)).toEqual({
        code: 'codex_signed_out',
        message: 'Codex is not signed in — Sign in',
        action: 'codexSignIn',
      });
      expect(model.requests.filter((r) => r.url.startsWith('/v1/responses'))).toEqual([]);
      expect((await client.call('codex.profiles.refresh', { profileId: profile!.id })).profile.status).toBe(
        'signed_out',
      );
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-1 a device-code sign-in shows the URL and code, completes when the user approves, and the profile turns authenticated on every device',
    async () => {
      const [profile] = (await client.call('codex.profiles.list')).profiles;
      const changes: {
        profile: CodexProfile;
        login?: { loginId: string | null; success: boolean; error: string | null };
      }[] = [];
      other.onNotification('codex.profile.changed', (params) => changes.push(params));
      const { login } = await client.call('codex.login.start', { profileId: profile!.id, method: 'deviceCode' });
      expect(login).toMatchObject({
        method: 'deviceCode',
        verificationUrl: `${auth.url}/codex/device`,
        userCode: auth.userCode,
      });
      expect(login.loginId).toEqual(expect.any(String));
      // Nothing is signed in until the user enters the code on the page.
      expect((await profileOf(profile!.id)).status).toBe('signed_out');
      auth.approve();
      const done = await waitUntil(() => changes.find((c) => c.login), 'the sign-in completes', {
        timeoutMs: 60_000,
        intervalMs: 100,
      });
      expect(done.login).toEqual({ loginId: login.loginId, success: true, error: null });
      expect(await profileOf(profile!.id)).toMatchObject({
        status: 'authenticated',
        authMode: 'chatgpt',
        email: auth.email,
      });

      // A run now goes through, with the sign-in's token.
      const sessionId = await createAgentSession(client, 'codex');
      await sendAndWait(client, sessionId, 'Now?');
      expect(bearerOf(model.requests.at(-1)!)).toBe(auth.accessToken);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "ACC-7 the signed-in profile's plan limits are stored as usage readings for its id",
    async () => {
      const [profile] = (await client.call('codex.profiles.list')).profiles;
      const readings = await waitUntil(
        async () => {
          const { readings: all } = await client.call('usage.list');
          const mine = all.filter((r) => r.accountKey === profile!.id);
          return mine.length >= 2 && mine;
        },
        () =>
          `usage readings arrive (${runtime
            .output()
            .split('\n')
            .filter((l) => l.includes('plan limits'))
            .join(' | ')})`,
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      expect(readings.find((r) => r.window === 'primary')).toMatchObject({
        agent: 'codex',
        usedPercent: auth.usage.primaryPercent,
        resetsAt: auth.usage.resetAt * 1000,
      });
      expect(readings.find((r) => r.window === 'secondary')).toMatchObject({
        usedPercent: auth.usage.secondaryPercent,
      });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-1 sign-out turns the profile signed_out and the next run asks to sign in again',
    async () => {
      const [profile] = (await client.call('codex.profiles.list')).profiles;
      expect((await client.call('codex.logout', { profileId: profile!.id })).profile).toMatchObject({
        status: 'signed_out',
        email: null,
      });
      const sessionId = await createAgentSession(client, 'codex');
      const { runId, rows } = await sendAndWait(client, sessionId, 'Still there?', 'failed');
      expect(failureOf(rows, runId)?.code).toBe('codex_signed_out');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "ACC-1 a browser sign-in gives the issuer's URL; once the browser comes back to Codex's callback the profile is signed in",
    async () => {
      const { profile } = await client.call('codex.profiles.add', { name: 'Browser' });
      const changes: {
        profile: CodexProfile;
        login?: { loginId: string | null; success: boolean; error: string | null };
      }[] = [];
      const stop = client.onNotification('codex.profile.changed', (params) => changes.push(params));
      const { login } = await client.call('codex.login.start', { profileId: profile.id, method: 'browser' });
      expect(login.authUrl?.startsWith(`${auth.url}/oauth/authorize?`)).toBe(true);
      expect(login.verificationUrl).toBeNull();
      // What the user's browser on the desktop does: the issuer signs in and sends it to Codex's local callback.
      const landed = await fetch(login.authUrl!, { redirect: 'follow' });
      expect(new URL(landed.url).pathname).toBe('/success');
      const done = await waitUntil(
        () => changes.find((c) => c.profile.id === profile.id && c.login),
        'the browser sign-in completes',
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      stop();
      expect(done.login).toMatchObject({ success: true, error: null });
      expect(await profileOf(profile.id)).toMatchObject({
        status: 'authenticated',
        authMode: 'chatgpt',
        email: auth.email,
      });
      await client.call('codex.logout', { profileId: profile.id });
      await client.call('codex.profiles.remove', { profileId: profile.id });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-1 a second profile signs in with an API key; a session picks it at creation and its key reaches the model',
    async () => {
      const { profile } = await client.call('codex.profiles.add', { name: 'Work' });
      expect(profile).toMatchObject({ name: 'Work', status: 'signed_out' });
      await expect(client.call('codex.login.start', { profileId: profile.id, method: 'apiKey' })).rejects.toMatchObject(
        { code: 'invalid_params' },
      );
      const key = `sk-test-${crypto.randomUUID()}`;
      const started = await client.call('codex.login.start', { profileId: profile.id, method: 'apiKey', apiKey: key });
      expect(started.profile).toMatchObject({ status: 'authenticated', authMode: 'apiKey' });
      const { projects } = await client.call('projects.list');
      const { session } = await client.call('sessions.create', {
        projectId: projects[0]!.id,
        agent: 'codex',
        settings: {
          codex: {
            profileId: profile.id,
            sandbox: 'workspace-write',
            approvalPolicy: 'on-request',
            model: null,
            effort: null,
          },
        },
      });
      await sendAndWait(client, session.id, 'With the key');
      expect(bearerOf(model.requests.at(-1)!)).toBe(key);
      expect(
        (await client.call('codex.profiles.rename', { profileId: profile.id, name: 'Work key' })).profile.name,
      ).toBe('Work key');

      // ACC-1 removal: refused while a session continues a thread in it; then the folder goes.
      await expect(client.call('codex.profiles.remove', { profileId: profile.id })).rejects.toMatchObject({
        code: 'conflict',
      });
      const folder = path.join(runtime.dataDir, 'codex', 'profiles', profile.id);
      expect(fs.existsSync(folder)).toBe(true);
      await client.call('sessions.delete', { sessionId: session.id });
      await client.call('codex.profiles.remove', { profileId: profile.id });
      expect(fs.existsSync(folder)).toBe(false);
      expect((await client.call('codex.profiles.list')).profiles.map((p) => p.id)).not.toContain(profile.id);
      await expect(createAgentSessionWithProfile(client, profile.id)).rejects.toMatchObject({ code: 'not_found' });
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});

async function createAgentSessionWithProfile(client: RpcClient, profileId: string): Promise<string> {
  const { projects } = await client.call('projects.list');
  const settings = {
    codex: {
      profileId,
      sandbox: 'workspace-write' as const,
      approvalPolicy: 'on-request' as const,
      model: null,
      effort: null,
    },
  };
  return (await client.call('sessions.create', { projectId: projects[0]!.id, agent: 'codex', settings })).session.id;
}
