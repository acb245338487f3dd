import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ClaudeAccounts } from '../../../../server/runtime/agents/claude/claudeAccountService';
import { silentLogger } from '../../../../server/runtime/log';
import { MIGRATIONS_DIR } from '../../../../server/runtime/paths';
import { openDatabase } from '../../../../server/runtime/store/database';
import { applyMigrations } from '../../../../server/runtime/store/migrate';
import { makeTempDir } from '../../../fixtures/tempDir';

/** Every byte of the database, its WAL and its shared-memory index, as text. */
function databaseBytes(dataDir: string): string {
  return ['hbcode.db', 'hbcode.db-wal', 'hbcode.db-shm']
    .map((name) => path.join(dataDir, name))
    .filter((file) => fs.existsSync(file))
    .map((file) => fs.readFileSync(file).toString('latin1'))
    .join('\n');
}

/** A database as a runtime before migration 0015 left it: keys in `claude_account_api_keys`. */
function databaseOfAnOlderRuntime(dataDir: string, keys: Record<string, string[]>): void {
  const older = makeTempDir('hbcode-migrations-0011-');
  for (const file of fs.readdirSync(MIGRATIONS_DIR).filter((name) => name < '0015'))
    fs.copyFileSync(path.join(MIGRATIONS_DIR, file), path.join(older, file));
  const db = new Database(path.join(dataDir, 'hbcode.db'));
  db.pragma('journal_mode = WAL');
  applyMigrations(db, older);
  const upsert = db.prepare(
    'INSERT INTO claude_account_api_keys (account_id, api_key, updated_at) VALUES (?, ?, 1) ON CONFLICT(account_id) DO UPDATE SET api_key = excluded.api_key',
  );
  // Each key set several times, as a user retyping it would: old cells linger in free space.
  for (const [accountId, versions] of Object.entries(keys)) for (const key of versions) upsert.run(accountId, key);
  db.prepare('INSERT INTO claude_accounts (id, label, created_at) VALUES (?, ?, 1)').run(
    '0b8f1f5e-3c1d-4e43-9a59-6d1d2f3c4b5a',
    'Work',
  );
  db.close();
  fs.mkdirSync(path.join(dataDir, 'claude', 'accounts', '0b8f1f5e-3c1d-4e43-9a59-6d1d2f3c4b5a'), { recursive: true });
}

describe('ACC-10 API keys at rest', () => {
  const work = '0b8f1f5e-3c1d-4e43-9a59-6d1d2f3c4b5a';

  it('ACC-10 a key set in the app is in an owner-only file, never in the database, and reaches the run environment', () => {
    const dataDir = makeTempDir('hbcode-keys-');
    const db = openDatabase(path.join(dataDir, 'hbcode.db'), MIGRATIONS_DIR);
    const accounts = new ClaudeAccounts(
      db,
      dataDir,
      { CLAUDE_CONFIG_DIR: makeTempDir('hbcode-claude-main-') },
      silentLogger,
    );
    const key = 'sk-ant-fresh-key-7f3a9c2e41d8';
    accounts.setApiKey('default', key);
    expect(accounts.runEnvironment('default').env.ANTHROPIC_API_KEY).toBe(key);
    expect(accounts.list().accounts[0]).toMatchObject({ id: 'default', hasApiKey: true });
    const file = path.join(dataDir, 'claude', 'api-keys', 'default');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(databaseBytes(dataDir)).not.toContain(key);
    accounts.setApiKey('default', null);
    expect(fs.existsSync(file)).toBe(false);
    expect(accounts.runEnvironment('default').env.ANTHROPIC_API_KEY).toBeUndefined();
    db.close();
  });

  it('ACC-10 keys an older runtime kept in the database move to their files; no byte of any version stays in the database or WAL', () => {
    const dataDir = makeTempDir('hbcode-keys-');
    const defaultKeys = ['sk-ant-old-default-1a2b3c4d5e', 'sk-ant-old-default-6f7a8b9c0d'];
    const workKeys = ['sk-ant-old-work-9z8y7x6w5v'];
    databaseOfAnOlderRuntime(dataDir, { default: defaultKeys, [work]: workKeys });
    for (const key of [defaultKeys[1]!, workKeys[0]!]) expect(databaseBytes(dataDir)).toContain(key);

    const db = openDatabase(path.join(dataDir, 'hbcode.db'), MIGRATIONS_DIR);
    const accounts = new ClaudeAccounts(
      db,
      dataDir,
      { CLAUDE_CONFIG_DIR: makeTempDir('hbcode-claude-main-') },
      silentLogger,
    );
    expect(accounts.runEnvironment('default').env.ANTHROPIC_API_KEY).toBe(defaultKeys[1]);
    expect(accounts.runEnvironment(work).env.ANTHROPIC_API_KEY).toBe(workKeys[0]);
    const bytes = databaseBytes(dataDir);
    for (const key of [...defaultKeys, ...workKeys]) expect(bytes).not.toContain(key);
    expect(db.prepare('SELECT COUNT(*) AS n FROM claude_api_keys_to_move').get()).toEqual({ n: 0 });
    db.close();
    // A second start finds nothing to move and keeps the files.
    const again = openDatabase(path.join(dataDir, 'hbcode.db'), MIGRATIONS_DIR);
    const reopened = new ClaudeAccounts(
      again,
      dataDir,
      { CLAUDE_CONFIG_DIR: makeTempDir('hbcode-claude-main-') },
      silentLogger,
    );
    expect(reopened.runEnvironment(work).env.ANTHROPIC_API_KEY).toBe(workKeys[0]);
    reopened.remove(work);
    expect(fs.existsSync(path.join(dataDir, 'claude', 'api-keys', work))).toBe(false);
    again.close();
  });
});
