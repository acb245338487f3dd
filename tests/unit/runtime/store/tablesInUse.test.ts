import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { applyMigrations } from '../../../../server/runtime/store/migrate';
import { MIGRATIONS_DIR, REPO_ROOT } from '../../../../server/runtime/paths';

/** The runtime's own sources (migrations aside), where a table in use is named. */
function runtimeSources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return runtimeSources(full);
    return entry.name.endsWith('.ts') ? [fs.readFileSync(full, 'utf8')] : [];
  });
}

/** Tables no runtime source names (as a whole word) among `tables`. */
function tablesNoSourceNames(tables: readonly string[], sources: readonly string[]): string[] {
  return tables.filter((table) => !sources.some((source) => new RegExp(`\\b${table}\\b`).test(source)));
}

describe('STO-5 a table exists because a feature uses it', () => {
  it('STO-5 every table the migrations leave is named by the runtime code outside migrations/', () => {
    const db = new Database(':memory:');
    applyMigrations(db, MIGRATIONS_DIR);
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .pluck()
      .all() as string[];
    db.close();
    expect(tables.length).toBeGreaterThan(10);
    expect(tablesNoSourceNames(tables, runtimeSources(path.join(REPO_ROOT, 'server')))).toEqual([]);
  });

  it('STO-5 the check finds a table nothing names', () => {
    expect(tablesNoSourceNames(['sessions', 'sessions_archive'], ["db.prepare('SELECT id FROM sessions')"])).toEqual([
      'sessions_archive',
    ]);
  });
});
