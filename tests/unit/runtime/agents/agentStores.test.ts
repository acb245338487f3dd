import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaudeStore, CONVERSATION_TAKEN_MESSAGE } from '../../../../server/runtime/agents/claude/claudeStore';
import { CodexProfiles, configOverrides, profileConfig } from '../../../../server/runtime/agents/codex/codexProfiles';
import { MIGRATIONS_DIR } from '../../../../server/runtime/paths';
import { SessionStore } from '../../../../server/runtime/sessions/sessionStore';
import { openDatabase, type Db } from '../../../../server/runtime/store/database';

describe('agent identity stores (SES-2, ACC-8)', () => {
  let dir: string;
  let db: Db;
  let sessions: SessionStore;
  let projectId: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-agent-stores-'));
    db = openDatabase(path.join(dir, 'hbcode.db'), MIGRATIONS_DIR);
    sessions = new SessionStore(db);
    projectId = sessions.ensureProjects([dir])[0]!.id;
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('SES-2 one app session per Claude conversation: a second link is a conflict with the ACC-8 message', () => {
    const store = new ClaudeStore(db);
    const first = sessions.createSession(projectId, 'claude', 'a');
    const second = sessions.createSession(projectId, 'claude', 'b');
    const native = crypto.randomUUID();
    store.linkSession(first.id, native);
    expect(() => store.linkSession(second.id, native.toUpperCase())).toThrow(
      expect.objectContaining({ code: 'conflict', message: CONVERSATION_TAKEN_MESSAGE }),
    );
    expect(store.nativeSessionId(first.id)).toBe(native);
    expect(store.nativeSessionId(second.id)).toBeUndefined();
  });

  it('STO-2 claude_operations is written before the send: a retry keeps the first UUID and run id, another text is a conflict', () => {
    const store = new ClaudeStore(db);
    const session = sessions.createSession(projectId, 'claude', 'a');
    store.linkSession(session.id);
    const run = sessions.insertRun(session.id, 'op-1', 'hello');
    const first = store.claimOperation(session.id, 'op-1', run.id, 'hello');
    const other = sessions.insertRun(session.id, 'op-2', 'hello');
    expect(store.claimOperation(session.id, 'op-1', other.id, 'hello')).toEqual(first);
    expect(first.runId).toBe(run.id);
    expect(() => store.claimOperation(session.id, 'op-1', run.id, 'something else')).toThrow(
      expect.objectContaining({ code: 'conflict' }),
    );
  });

  it('STO-4 deleting a session removes its Claude and Codex links by cascade, and keeps the Codex profile', () => {
    const claude = new ClaudeStore(db);
    const a = sessions.createSession(projectId, 'claude', 'a');
    claude.linkSession(a.id);
    const profiles = new CodexProfiles(db, dir);
    const profile = profiles.defaultProfile();
    const b = sessions.createSession(projectId, 'codex', 'b');
    db.prepare(
      "INSERT INTO codex_session_links (app_session_id, profile_id, codex_thread_id) VALUES (?, ?, 'thread-1')",
    ).run(b.id, profile.id);
    sessions.deleteSessionRow(a.id);
    sessions.deleteSessionRow(b.id);
    expect(db.prepare('SELECT COUNT(*) AS n FROM claude_sessions').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM codex_session_links').get()).toEqual({ n: 0 });
    expect(profiles.defaultProfile()).toEqual(profile);
  });

  it('SES-2 a Codex profile id is a stable lowercase UUID and its home lies under the data folder', () => {
    const profiles = new CodexProfiles(db, dir);
    const profile = profiles.defaultProfile();
    expect(profile.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(profile.home).toBe(path.join(dir, 'codex', 'profiles', profile.id, 'home'));
    expect(() => db.prepare("INSERT INTO codex_profiles (id, created_at) VALUES ('ABC', 1)").run()).toThrow(/CHECK/);
  });
});

describe('HBCODE_CODEX_CONFIG_TOML', () => {
  it('SES-2 is merged into every profile config: tables key by key, the user winning, our defaults kept (ACC-5: workspace-write)', () => {
    const merged = profileConfig(
      'approval_policy = "never"\nmodel_provider = "fake"\n[model_providers.fake]\nbase_url = "http://127.0.0.1:1/v1"\n',
    );
    expect(merged).toMatchObject({
      approval_policy: 'never',
      sandbox_mode: 'workspace-write',
      check_for_update_on_startup: false,
      model_provider: 'fake',
      model_providers: { fake: { base_url: 'http://127.0.0.1:1/v1' } },
    });
  });

  it('SES-2 reaches Codex as -c overrides, never as a file in the Codex home: dotted keys, TOML values', () => {
    const args = configOverrides(
      profileConfig(
        'retries = 0\nflags = ["a", "b"]\n[model_providers."my provider"]\nbase_url = "http://127.0.0.1:1/v1"\n',
      ),
    );
    const pairs = new Map<string, string>();
    for (let i = 0; i < args.length; i += 2) {
      expect(args[i]).toBe('-c');
      const [key, ...value] = args[i + 1]!.split('=');
      pairs.set(key!, value.join('='));
    }
    expect(pairs.get('sandbox_mode')).toBe('"workspace-write"');
    expect(pairs.get('retries')).toBe('0');
    expect(parse(`v = ${pairs.get('flags')}`)).toEqual({ v: ['a', 'b'] });
    expect(pairs.get('model_providers."my provider".base_url')).toBe('"http://127.0.0.1:1/v1"');
    expect(
      parse(`${'model_providers."my provider".base_url'} = ${pairs.get('model_providers."my provider".base_url')}`),
    ).toEqual({
      model_providers: { 'my provider': { base_url: 'http://127.0.0.1:1/v1' } },
    });
  });

  it('RPC-3 invalid TOML is a clear invalid_params error', () => {
    expect(() => profileConfig('model = ')).toThrow(
      expect.objectContaining({ code: 'invalid_params', message: expect.stringContaining('HBCODE_CODEX_CONFIG_TOML') }),
    );
  });
});
