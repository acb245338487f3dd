import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../store/database';
import { writeOwnerOnlyFileAtomically } from '../../store/writeOwnerOnlyFile';

/** Account ids are `default` or a lower-case UUID (ACC-2): nothing else may name a key file. */
const ACCOUNT_FILE_NAME = /^(default|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * ACC-10: an API key entered in the app is kept in a file of its own, owner-only (0600), in the
 * data folder's `claude/api-keys/` (0700) — never in the database, whose pages and WAL would keep
 * old copies in clear. A key is written to a fresh file and renamed over the old one, so a crash
 * leaves either key, never half of one.
 */
export class ClaudeApiKeyFiles {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'claude', 'api-keys');
  }

  private fileOf(accountId: string): string {
    if (!ACCOUNT_FILE_NAME.test(accountId)) throw new Error(`Not a Claude account id: ${JSON.stringify(accountId)}`);
    return path.join(this.dir, accountId);
  }

  read(accountId: string): string | null {
    try {
      return fs.readFileSync(this.fileOf(accountId), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  has(accountId: string): boolean {
    return fs.existsSync(this.fileOf(accountId));
  }

  write(accountId: string, apiKey: string): void {
    writeOwnerOnlyFileAtomically(this.fileOf(accountId), apiKey);
  }

  remove(accountId: string): void {
    fs.rmSync(this.fileOf(accountId), { force: true });
  }
}

/**
 * ACC-10: keys an older runtime stored in the database (migration 0015 left them in
 * `claude_api_keys_to_move`) go to their files, then the rows are deleted with secure_delete, the
 * database is rebuilt (VACUUM: no free page keeps an old key) and the WAL is truncated.
 * Returns how many keys moved.
 */
export function moveDatabaseKeysToFiles(db: Db, files: ClaudeApiKeyFiles): number {
  const rows = db
    .prepare<[], { account_id: string; api_key: string }>('SELECT account_id, api_key FROM claude_api_keys_to_move')
    .all();
  if (rows.length === 0) return 0;
  for (const row of rows) if (!files.has(row.account_id)) files.write(row.account_id, row.api_key);
  const secureDelete = db.pragma('secure_delete', { simple: true }) as number;
  db.pragma('secure_delete = ON');
  try {
    db.prepare('DELETE FROM claude_api_keys_to_move').run();
  } finally {
    db.pragma(`secure_delete = ${secureDelete}`);
  }
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  return rows.length;
}
