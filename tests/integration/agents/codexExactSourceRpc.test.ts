import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, type RpcClient } from '../../../lib/client/rpcClient';
import type { CodexRollout } from '../../../lib/protocol/accounts';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { ownCodexHome, type OwnCodexHome } from '../../fixtures/codexOwnHome';
import { codexConfigToml } from '../../fixtures/fakeCodexModel';
import { messageReply, queuedReplies } from '../../fixtures/fakeCodexTimeline';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

const PROMPT = 'Summarise the open issues';

async function rpcFailure(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

/**
 * SRC-1..SRC-4 over the protocol, against the runtime process and the real Codex: the person's
 * own conversation (written by `codex exec`) listed, opened, paged, refused a message, and its
 * file's changes and loss reported with their codes through `sessions.timeline`.
 */
describe('SRC a Codex conversation file through the runtime protocol', () => {
  let model: FakeModelServer;
  let own: OwnCodexHome;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let rollout: CodexRollout;
  let sessionId: string;

  beforeAll(async () => {
    model = await startFakeModelServer(queuedReplies([messageReply('Three are open.')]));
    own = ownCodexHome();
    runtime = await startRuntimeProcess({
      env: {
        HBCODE_CODEX_BIN: installedAgents().codexBin,
        HBCODE_CODEX_CONFIG_TOML: codexConfigToml(model.url),
        CODEX_HOME: own.home,
      },
    });
    await own.exec({ modelUrl: model.url, cwd: runtime.projectDir, prompt: PROMPT });
    client = await runtime.connect();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    await model?.close();
    own?.remove();
  });

  it(
    'SRC-1 SRC-2 codex.rollouts.list lists the file; sessions.create opens it; its rows page through sessions.timeline',
    async () => {
      const { rollouts, next } = await client.call('codex.rollouts.list', { limit: 5 });
      expect(next).toBeNull();
      expect(rollouts).toEqual([
        expect.objectContaining({ profileId: null, firstPrompt: PROMPT, cwd: runtime.projectDir }),
      ]);
      rollout = rollouts[0]!;
      const { projects } = await client.call('projects.list');
      await expect(
        client.call('sessions.create', {
          projectId: projects[0]!.id,
          agent: 'codex',
          codexRolloutPath: path.join(runtime.projectDir, 'rollout-2026-01-01T00-00-00-x.jsonl'),
        }),
      ).rejects.toMatchObject({
        code: 'invalid_params',
      });
      const { session } = await client.call('sessions.create', {
        projectId: projects[0]!.id,
        agent: 'codex',
        codexRolloutPath: rollout.path,
      });
      sessionId = session.id;
      expect(await client.call('codex.source.get', { sessionId })).toEqual({
        source: { path: rollout.path, readOnly: true },
      });
      const newest = await client.call('sessions.timeline', { sessionId, limit: 1 });
      expect(newest.older).not.toBeNull();
      const older = await client.call('sessions.timeline', { sessionId, before: newest.older!, limit: 50 });
      const texts = [...older.rows, ...newest.rows].flatMap((row) =>
        'text' in row && typeof row.text === 'string' ? [row.text] : [],
      );
      expect(texts).toEqual(expect.arrayContaining([PROMPT, 'Three are open.']));
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it("SRC-4 chat.send to the person's own conversation is refused and the file is not written", async () => {
    const before = fs.readFileSync(rollout.path);
    const error = await rpcFailure(
      client.call('chat.send', { sessionId, operationId: 'src-4-send', text: 'Write into it' }),
    );
    expect(error).toMatchObject({
      code: 'invalid_params',
      data: expect.objectContaining({ reason: 'read_only_source' }),
    });
    expect(fs.readFileSync(rollout.path).equals(before)).toBe(true);
  });

  it('SRC-3 a rewritten file fails the next page with reload_required and its sentence; appending does not', async () => {
    const original = fs.readFileSync(rollout.path);
    const first = await client.call('sessions.timeline', { sessionId, limit: 1 });
    fs.appendFileSync(rollout.path, '\n');
    await client.call('sessions.timeline', { sessionId, before: first.older!, limit: 1 });
    const appended = fs.readFileSync(rollout.path);
    fs.writeFileSync(rollout.path, appended.toString('utf8').replace(PROMPT, PROMPT.toLowerCase()));
    try {
      const error = await rpcFailure(client.call('sessions.timeline', { sessionId, before: first.older!, limit: 1 }));
      expect(error).toMatchObject({ code: 'reload_required', message: 'Timeline source changed; reload the timeline' });
    } finally {
      fs.writeFileSync(rollout.path, original);
    }
  });

  it('SRC-2 a file gone is source_unavailable on the newest page, and codex.source.choose takes it back once it is there again', async () => {
    const kept = `${rollout.path}.kept`;
    fs.renameSync(rollout.path, kept);
    try {
      const error = await rpcFailure(client.call('sessions.timeline', { sessionId, limit: 5 }));
      expect(error).toMatchObject({
        code: 'source_unavailable',
        data: expect.objectContaining({ path: rollout.path }),
      });
      expect(await rpcFailure(client.call('codex.source.choose', { sessionId, path: rollout.path }))).toMatchObject({
        code: 'source_unavailable',
      });
    } finally {
      fs.renameSync(kept, rollout.path);
    }
    await client.call('codex.source.choose', { sessionId, path: rollout.path });
    expect((await client.call('sessions.timeline', { sessionId, limit: 5 })).rows.length).toBeGreaterThan(0);
  });
});
