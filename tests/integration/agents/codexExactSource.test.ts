import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../../server/runtime/agents/agent';
import { z } from 'zod';
import { AppServerClient } from '../../../server/runtime/agents/codex/appServerClient';
import { configOverrides, profileConfig } from '../../../server/runtime/agents/codex/codexProfiles';
import { CODEX } from '../../../server/runtime/agents/codex/codexProtocol';
import { RuntimeError } from '../../../server/runtime/errors';
import { silentLogger } from '../../../server/runtime/log';
import { SessionStore } from '../../../server/runtime/sessions/sessionStore';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { startCodexAdapter, wholeHistory, type CodexAdapterHarness } from '../../fixtures/codexAdapterHarness';
import { codexConfigToml } from '../../fixtures/fakeCodexModel';
import { ownCodexHome, type OwnCodexHome } from '../../fixtures/codexOwnHome';
import { messageReply, queuedReplies } from '../../fixtures/fakeCodexTimeline';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { recordingRunContext } from '../../fixtures/recordingRunContext';

const FIRST = 'Check the release notes';
const OWN_PROMPT = 'Tidy the changelog';

/** The texts of a timeline, in order: user messages and the agent's answers. */
const textsOf = (entries: HistoryEntry[]) =>
  entries.flatMap((entry) =>
    entry.kind === 'user'
      ? [entry.text]
      : entry.kind === 'item' && 'text' in entry.item && typeof entry.item.text === 'string'
        ? [entry.item.text]
        : [],
  );

async function failure(promise: Promise<unknown>): Promise<RuntimeError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RuntimeError);
  return error as RuntimeError;
}

function walk(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/**
 * SRC-1..SRC-4 with conversation files the real Codex wrote: one in a runtime profile's home (a
 * turn run through the adapter) and one in the person's own Codex home (`codex exec` with its own
 * CODEX_HOME, outside the temporary folder, with a TMPDIR beside it: Codex refuses a home under its
 * temporary folder).
 */
describe('SRC Codex conversations opened from their files, with rollouts the real Codex wrote', () => {
  let model: FakeModelServer;
  let harness: CodexAdapterHarness;
  let own: OwnCodexHome;
  let ownHome: string;
  let sessions: SessionStore;
  let projectId: string;
  let profileRollout: string;
  let threadId: string;

  beforeAll(async () => {
    model = await startFakeModelServer(
      queuedReplies([messageReply('Checked.'), messageReply('Tidied.'), messageReply('Appended.')]),
    );
    own = ownCodexHome();
    ownHome = own.home;
    harness = startCodexAdapter({
      codexBin: installedAgents().codexBin,
      configToml: codexConfigToml(model.url),
      env: { CODEX_HOME: ownHome },
    });
    sessions = new SessionStore(harness.db);
    projectId = sessions.session(harness.sessionId)!.projectId;
    await harness.agent.run(
      recordingRunContext({ sessionId: harness.sessionId, cwd: harness.project, text: FIRST }).context,
    );
    const link = harness.db
      .prepare<[string], { codex_thread_id: string }>(
        'SELECT codex_thread_id FROM codex_session_links WHERE app_session_id = ?',
      )
      .get(harness.sessionId)!;
    threadId = link.codex_thread_id;
    profileRollout = walk(path.join(harness.dataDir, 'codex', 'profiles')).find((file) =>
      path.basename(file).startsWith('rollout-'),
    )!;
    // The person's own terminal conversation.
    await own.exec({ modelUrl: model.url, cwd: harness.project, prompt: OWN_PROMPT });
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await harness?.close();
    await model?.close();
    own?.remove();
  });

  const newSession = () => sessions.createSession(projectId, 'codex', 'from a file').id;

  it("SRC-1 the files of the profile homes and of the person's own home are listed newest first, with thread id, cwd, first prompt, time and size", () => {
    const { rollouts, next } = harness.agent.sources.list({ limit: 10 });
    expect(next).toBeNull();
    expect(rollouts).toHaveLength(2);
    const [mine, profile] = rollouts;
    expect(mine).toMatchObject({
      profileId: null,
      firstPrompt: OWN_PROMPT,
      cwd: harness.project,
      size: fs.statSync(mine!.path).size,
    });
    expect(mine!.path.startsWith(path.join(ownHome, 'sessions') + path.sep)).toBe(true);
    expect(profile).toMatchObject({
      path: profileRollout,
      threadId,
      firstPrompt: FIRST,
      cwd: harness.project,
      size: fs.statSync(profileRollout).size,
    });
    expect(profile!.profileId).toEqual(expect.any(String));
    expect(mine!.startedAt!).toBeGreaterThanOrEqual(profile!.startedAt!);
    // Paged: one at a time, the second page continues after the first.
    const first = harness.agent.sources.list({ limit: 1 });
    expect(first.rollouts.map((r) => r.path)).toEqual([mine!.path]);
    const second = harness.agent.sources.list({ limit: 1, cursor: first.next! });
    expect(second.rollouts.map((r) => r.path)).toEqual([profileRollout]);
    expect(second.next).toBeNull();
  });

  it('SRC-1 a path outside the homes, a traversal, a link leading out and a file that is not a rollout are refused', async () => {
    const sessionId = newSession();
    const outside = path.join(harness.project, 'rollout-2026-01-01T00-00-00-x.jsonl');
    fs.writeFileSync(outside, fs.readFileSync(profileRollout));
    const sessionsFolder = path.dirname(path.dirname(path.dirname(path.dirname(profileRollout))));
    const leadingOut = path.join(path.dirname(profileRollout), 'rollout-2026-01-01T00-00-00-link.jsonl');
    fs.symlinkSync(outside, leadingOut);
    try {
      for (const requested of [
        outside,
        '/etc/passwd',
        `${sessionsFolder}/../auth.json`,
        `${path.dirname(profileRollout)}/../../../../../../../etc/passwd`,
        leadingOut,
        path.join(sessionsFolder, 'notes.txt'),
        'sessions/x.jsonl',
      ]) {
        expect(() => harness.agent.openRollout(sessionId, null, requested), requested).toThrow(
          expect.objectContaining({ code: 'invalid_params' }),
        );
      }
    } finally {
      fs.rmSync(leadingOut);
    }
  });

  it(
    'SRC-2 a file of a profile home opens as its thread (one session at a time), with its history on the timeline; a turn appends and keeps the cursor',
    async () => {
      const sessionId = newSession();
      expect(() => harness.agent.openRollout(sessionId, null, profileRollout)).toThrow(
        expect.objectContaining({ code: 'conflict' }),
      );
      // The session that had it is deleted: the conversation can be opened from its file.
      harness.db.prepare('DELETE FROM sessions WHERE id = ?').run(harness.sessionId);
      harness.agent.openRollout(sessionId, null, profileRollout);
      expect(harness.agent.sourceOf(sessionId)).toEqual({ path: profileRollout, readOnly: false });
      const whole = await wholeHistory({ agent: harness.agent, sessionId, project: harness.project }, 1);
      expect(textsOf(whole.entries)).toEqual([FIRST, 'Checked.']);
      // A cursor taken before a turn of this session appends to the file still reads the older page.
      const newest = await harness.agent.historyPage({
        sessionId,
        cwd: harness.project,
        parentItemId: null,
        before: null,
        after: null,
        limit: 1,
      });
      const sizeBefore = fs.statSync(profileRollout).size;
      await harness.agent.run(recordingRunContext({ sessionId, cwd: harness.project, text: 'Append a turn' }).context);
      expect(fs.statSync(profileRollout).size).toBeGreaterThan(sizeBefore);
      const older = await harness.agent.historyPage({
        sessionId,
        cwd: harness.project,
        parentItemId: null,
        before: newest.older,
        after: null,
        limit: 1,
      });
      expect(textsOf(older.entries)).toEqual([FIRST]);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'SRC-3 a file rewritten (not only appended) since a page was read fails the next page with reload_required',
    async () => {
      const sessionId = harness.db
        .prepare<[string], { app_session_id: string }>(
          'SELECT app_session_id FROM codex_session_links WHERE rollout_path = ?',
        )
        .get(profileRollout)!.app_session_id;
      const page = await harness.agent.historyPage({
        sessionId,
        cwd: harness.project,
        parentItemId: null,
        before: null,
        after: null,
        limit: 1,
      });
      const original = fs.readFileSync(profileRollout);
      fs.writeFileSync(profileRollout, original.toString('utf8').replace(FIRST, FIRST.toUpperCase()));
      try {
        const error = await failure(
          harness.agent.historyPage({
            sessionId,
            cwd: harness.project,
            parentItemId: null,
            before: page.older,
            after: null,
            limit: 1,
          }),
        );
        expect(error).toMatchObject({
          code: 'reload_required',
          message: 'Timeline source changed; reload the timeline',
        });
        // Truncated is changed too.
        fs.writeFileSync(profileRollout, original.subarray(0, original.length - 10));
        expect(
          await failure(
            harness.agent.historyPage({
              sessionId,
              cwd: harness.project,
              parentItemId: null,
              before: page.older,
              after: null,
              limit: 1,
            }),
          ),
        ).toMatchObject({ code: 'reload_required' });
      } finally {
        fs.writeFileSync(profileRollout, original);
      }
      // Reloaded: the newest page reads again, and its cursor goes on.
      const reloaded = await harness.agent.historyPage({
        sessionId,
        cwd: harness.project,
        parentItemId: null,
        before: null,
        after: null,
        limit: 1,
      });
      expect(
        (
          await harness.agent.historyPage({
            sessionId,
            cwd: harness.project,
            parentItemId: null,
            before: reloaded.older,
            after: null,
            limit: 1,
          })
        ).entries.length,
      ).toBe(1);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'SRC-2 a file gone fails every page with source_unavailable; chosen again, the session reads it again',
    async () => {
      const sessionId = harness.db
        .prepare<[string], { app_session_id: string }>(
          'SELECT app_session_id FROM codex_session_links WHERE rollout_path = ?',
        )
        .get(profileRollout)!.app_session_id;
      const page = await harness.agent.historyPage({
        sessionId,
        cwd: harness.project,
        parentItemId: null,
        before: null,
        after: null,
        limit: 1,
      });
      const kept = path.join(harness.dataDir, 'kept.jsonl');
      fs.renameSync(profileRollout, kept);
      try {
        for (const before of [null, page.older]) {
          const error = await failure(
            harness.agent.historyPage({
              sessionId,
              cwd: harness.project,
              parentItemId: null,
              before,
              after: null,
              limit: 1,
            }),
          );
          expect(error).toMatchObject({ code: 'source_unavailable', data: { path: profileRollout } });
          expect(error.message).toContain('Choose the file again');
        }
        expect(() => harness.agent.chooseRolloutAgain(sessionId, profileRollout)).toThrow(
          expect.objectContaining({ code: 'source_unavailable' }),
        );
      } finally {
        fs.renameSync(kept, profileRollout);
      }
      harness.agent.chooseRolloutAgain(sessionId, profileRollout);
      const again = await harness.agent.historyPage({
        sessionId,
        cwd: harness.project,
        parentItemId: null,
        before: null,
        after: null,
        limit: 5,
      });
      expect(textsOf(again.entries)).toContain('Checked.');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "SRC-4 a conversation of the person's own home is read through an app-server on that home, never written, and takes no message",
    async () => {
      const mine = harness.agent.sources.list({ limit: 10 }).rollouts.find((r) => r.profileId === null)!;
      const sessionId = newSession();
      harness.agent.openRollout(sessionId, null, mine.path);
      expect(harness.agent.sourceOf(sessionId)).toEqual({ path: mine.path, readOnly: true });
      const before = fs.readFileSync(mine.path);
      const whole = await wholeHistory({ agent: harness.agent, sessionId, project: harness.project }, 2);
      expect(textsOf(whole.entries)).toEqual([OWN_PROMPT, 'Tidied.']);
      const run = recordingRunContext({ sessionId, cwd: harness.project, text: 'Write here' });
      await expect(harness.agent.run(run.context)).rejects.toMatchObject({ code: 'codex_read_only_source' });
      expect(fs.readFileSync(mine.path).equals(before)).toBe(true);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "SRC-5 a fork Codex made of the person's conversation names its parent; with the parent's file gone, opening and paging fail with missing_history_source",
    async () => {
      const parent = harness.agent.sources.list({ limit: 10 }).rollouts.find((r) => r.profileId === null)!;
      // Codex's own app forks the conversation, in the person's own home.
      const codex = new AppServerClient(
        {
          file: process.execPath,
          args: [installedAgents().codexBin, ...configOverrides(profileConfig(codexConfigToml(model.url)))],
        },
        { ...process.env, CODEX_HOME: ownHome, TMPDIR: path.join(path.dirname(ownHome), 'tmp') },
        { notification: () => undefined, request: async () => null, exited: () => undefined },
        silentLogger,
      );
      let forkId: string;
      try {
        await codex.call(
          CODEX.initialize,
          {
            clientInfo: { name: 'codex-app-double', title: 'Codex app', version: '0.0.0' },
            capabilities: { experimentalApi: true },
          },
          z.unknown(),
        );
        codex.notify(CODEX.initialized);
        forkId = (
          await codex.call(
            'thread/fork',
            { threadId: parent.threadId, cwd: harness.project },
            z.object({ thread: z.object({ id: z.string() }) }),
          )
        ).thread.id;
      } finally {
        await codex.close();
      }
      const fork = harness.agent.sources.list({ limit: 10 }).rollouts.find((r) => r.threadId === forkId)!;
      expect(fork).toMatchObject({ profileId: null, forkedFromThreadId: parent.threadId });
      expect(fs.readFileSync(fork.path, 'utf8')).not.toContain(OWN_PROMPT);

      const sessionId = newSession();
      harness.agent.openRollout(sessionId, null, fork.path);
      // Its timeline starts with the history it inherits, read through Codex from the parent's file.
      expect(
        textsOf((await wholeHistory({ agent: harness.agent, sessionId, project: harness.project }, 5)).entries),
      ).toEqual([OWN_PROMPT, 'Tidied.']);
      const page = await harness.agent.historyPage({
        sessionId,
        cwd: harness.project,
        parentItemId: null,
        before: null,
        after: null,
        limit: 1,
      });
      const kept = path.join(path.dirname(ownHome), 'parent.kept');
      fs.renameSync(parent.path, kept);
      try {
        for (const before of [null, page.older]) {
          const error = await failure(
            harness.agent.historyPage({
              sessionId,
              cwd: harness.project,
              parentItemId: null,
              before,
              after: null,
              limit: 1,
            }),
          );
          expect(error).toMatchObject({ code: 'missing_history_source', data: { threadId: parent.threadId } });
        }
        // Even next to the fork, under another name, it is not the parent Codex reads.
        fs.copyFileSync(kept, path.join(path.dirname(fork.path), 'rollout-2026-01-01T00-00-00-elsewhere.jsonl'));
        expect(() => harness.agent.openRollout(newSession(), null, fork.path)).toThrow(
          expect.objectContaining({ code: 'missing_history_source' }),
        );
        // Shorter than the part the fork inherits.
        fs.writeFileSync(parent.path, fs.readFileSync(kept).subarray(0, 100));
        expect(() => harness.agent.openRollout(newSession(), null, fork.path)).toThrow(
          expect.objectContaining({ code: 'missing_history_source' }),
        );
      } finally {
        fs.renameSync(kept, parent.path);
      }
      await harness.agent.historyPage({
        sessionId,
        cwd: harness.project,
        parentItemId: null,
        before: null,
        after: null,
        limit: 1,
      });
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
