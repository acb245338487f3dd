import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppServerClient } from '../../../server/runtime/agents/codex/appServerClient';
import { CodexProfiles, configOverrides, profileConfig } from '../../../server/runtime/agents/codex/codexProfiles';
import { CODEX, ThreadNameUpdatedSchema } from '../../../server/runtime/agents/codex/codexProtocol';
import { silentLogger } from '../../../server/runtime/log';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { startCodexAdapter, wholeHistory, type CodexAdapterHarness } from '../../fixtures/codexAdapterHarness';
import { codexConfigToml } from '../../fixtures/fakeCodexModel';
import { messageReply, queuedReplies } from '../../fixtures/fakeCodexTimeline';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { recordingRunContext } from '../../fixtures/recordingRunContext';
import { waitUntil } from '../../fixtures/waitUntil';

const NAME = 'Release checklist';

/**
 * UX-8: Codex's own title of a thread. The thread is named as Codex's own apps name it: by
 * `thread/name/set` from another `codex app-server` on the same Codex home. That child announces
 * the name (`thread/name/updated`, checked with the adapter's schema), and the adapter, reading
 * the thread after a restart, hands the name on as its session's title.
 */
describe("UX-8 the agent's own title: a Codex thread name, over the real app-server protocol", () => {
  let model: FakeModelServer;
  let harness: CodexAdapterHarness;
  const named: { sessionId: string; name: string }[] = [];

  beforeAll(async () => {
    model = await startFakeModelServer(queuedReplies([messageReply('Checked.')]));
    harness = startCodexAdapter({
      codexBin: installedAgents().codexBin,
      configToml: codexConfigToml(model.url),
      hooks: { threadNamed: (sessionId, name) => named.push({ sessionId, name }) },
    });
    await harness.agent.run(
      recordingRunContext({ sessionId: harness.sessionId, cwd: harness.project, text: 'Check the release' }).context,
    );
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await harness?.close();
    await model?.close();
  });

  it(
    "UX-8 a name given in another Codex app is announced in the shape the adapter reads, and becomes the session's agent title",
    async () => {
      expect(named).toEqual([]);
      const { codex_thread_id: threadId, profile_id: profileId } = harness.db
        .prepare<[string], { codex_thread_id: string; profile_id: string }>(
          'SELECT codex_thread_id, profile_id FROM codex_session_links WHERE app_session_id = ?',
        )
        .get(harness.sessionId)!;
      const profile = new CodexProfiles(harness.db, harness.dataDir).profile(profileId)!;
      await harness.agent.close();

      // Codex's own app: a second app-server on the same home names the thread.
      const notifications: { method: string; params: unknown }[] = [];
      const { codexBin } = installedAgents();
      const other = new AppServerClient(
        { file: process.execPath, args: [codexBin, ...configOverrides(profileConfig(codexConfigToml(model.url)))] },
        { ...process.env, CODEX_HOME: profile.home, TMPDIR: profile.tmp },
        {
          notification: (method, params) => notifications.push({ method, params }),
          request: async () => null,
          exited: () => undefined,
        },
        silentLogger,
      );
      try {
        await other.call(
          CODEX.initialize,
          {
            clientInfo: { name: 'codex-app-double', title: 'Codex app', version: '0.0.0' },
            capabilities: { experimentalApi: true },
          },
          z.unknown(),
        );
        other.notify(CODEX.initialized);
        await other.call(CODEX.threadResume, { threadId, cwd: harness.project }, z.unknown());
        await other.call(CODEX.threadNameSet, { threadId, name: NAME }, z.unknown());
        await waitUntil(
          () => notifications.some((n) => n.method === CODEX.threadNameUpdated),
          'Codex announces the new name',
          { timeoutMs: 30_000 },
        );
        const announced = notifications.find((n) => n.method === CODEX.threadNameUpdated)!;
        expect(ThreadNameUpdatedSchema.parse(announced.params)).toMatchObject({ threadId, threadName: NAME });
      } finally {
        await other.close();
      }

      // Our adapter, started again, resumes the thread to read it and passes its name on.
      await harness.restart();
      await wholeHistory(harness, 20);
      expect(named).toEqual([{ sessionId: harness.sessionId, name: NAME }]);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
