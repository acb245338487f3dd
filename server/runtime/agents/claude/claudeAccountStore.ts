import type { Db } from '../../store/database';
import { DEFAULT_CLAUDE_ACCOUNT } from './claudeAccounts';

const ACTIVE_ACCOUNT_KEY = 'claude.activeAccount';

export interface ClaudeAccountRow {
  id: string;
  label: string;
  createdAt: number;
}

/** claude_accounts and the active account in app_settings (ACC-2); their API keys are files (ACC-10). */
export class ClaudeAccountStore {
  constructor(private readonly db: Db) {}

  accounts(): ClaudeAccountRow[] {
    return this.db
      .prepare<[], { id: string; label: string; created_at: number }>(
        'SELECT id, label, created_at FROM claude_accounts ORDER BY created_at, id',
      )
      .all()
      .map((r) => ({ id: r.id, label: r.label, createdAt: r.created_at }));
  }

  has(id: string): boolean {
    return (
      id === DEFAULT_CLAUDE_ACCOUNT ||
      this.db.prepare('SELECT 1 FROM claude_accounts WHERE id = ?').get(id) !== undefined
    );
  }

  insert(row: ClaudeAccountRow): void {
    this.db
      .prepare('INSERT INTO claude_accounts (id, label, created_at) VALUES (?, ?, ?)')
      .run(row.id, row.label, row.createdAt);
  }

  /** Deletes the row; an active account gives way to the default one. */
  delete(id: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM claude_accounts WHERE id = ?').run(id);
      this.db.prepare('DELETE FROM app_settings WHERE key = ? AND value = ?').run(ACTIVE_ACCOUNT_KEY, id);
    })();
  }

  activeAccountId(): string {
    const row = this.db
      .prepare<[string], { value: string }>('SELECT value FROM app_settings WHERE key = ?')
      .get(ACTIVE_ACCOUNT_KEY);
    return row && this.has(row.value) ? row.value : DEFAULT_CLAUDE_ACCOUNT;
  }

  activate(id: string): void {
    this.db
      .prepare(
        'INSERT INTO app_settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      )
      .run(ACTIVE_ACCOUNT_KEY, id);
  }
}
