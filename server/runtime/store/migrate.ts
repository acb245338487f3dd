import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';

const MIGRATION_FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;
/** A migration that rebuilds a referenced table starts with this line: it runs with foreign keys off. */
const FOREIGN_KEYS_OFF = /^-- foreign_keys: off\r?\n/;

interface Migration {
  version: number;
  name: string;
  sql: string;
}

function readMigrations(dir: string): Migration[] {
  const migrations = fs
    .readdirSync(dir)
    .map((file) => {
      const match = MIGRATION_FILE.exec(file);
      if (!match) return null;
      return { version: Number(match[1]), name: match[2]!, sql: fs.readFileSync(path.join(dir, file), 'utf8') };
    })
    .filter((m): m is Migration => m !== null)
    .sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new Error(
        `Migrations must be numbered 0001, 0002, … without gaps; found ${m.version} at position ${i + 1}`,
      );
  });
  return migrations;
}

/** Applies each numbered migration once, in order, each in its own transaction (STO-1). */
export function applyMigrations(db: Database.Database, dir: string): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const done: number[] = [];
  for (const migration of readMigrations(dir)) {
    if (applied.has(migration.version)) continue;
    // SQLite ignores this pragma inside a transaction, so it is set around it; the references are
    // checked before the commit, as SQLite's table-rebuild procedure asks.
    const keysOff = FOREIGN_KEYS_OFF.test(migration.sql);
    if (keysOff) db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        db.exec(migration.sql);
        if (keysOff && (db.pragma('foreign_key_check') as unknown[]).length > 0)
          throw new Error(`Migration ${migration.version} broke a foreign key`);
        record.run(migration.version, migration.name, Date.now());
      })();
    } finally {
      if (keysOff) db.pragma('foreign_keys = ON');
    }
    done.push(migration.version);
  }
  return done;
}
