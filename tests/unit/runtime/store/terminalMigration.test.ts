import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../../../server/runtime/store/migrate';
import { MIGRATIONS_DIR } from '../../../../server/runtime/paths';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('TERM-1 the sessions table takes terminal sessions', () => {
  it('TERM-1 rebuilding sessions keeps every session, run and command and their references', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-migrate-'));
    made.push(dir);
    const before = path.join(dir, 'before');
    fs.mkdirSync(before);
    for (const file of fs.readdirSync(MIGRATIONS_DIR).filter((f) => f < '0012'))
      fs.copyFileSync(path.join(MIGRATIONS_DIR, file), path.join(before, file));
    const db = new Database(path.join(dir, 'hbcode.db'));
    db.pragma('foreign_keys = ON');
    applyMigrations(db, before);
    db.prepare("INSERT INTO projects (id, name, directory, created_at) VALUES ('p', 'P', '/p', 1)").run();
    db.prepare(
      "INSERT INTO sessions (id, project_id, agent, title, created_at) VALUES ('s', 'p', 'shell', 'S', 2)",
    ).run();
    db.prepare(
      "INSERT INTO runs (id, session_id, operation_id, text, state, seq, created_at) VALUES ('r', 's', 'o', 'ls', 'done', 1, 3)",
    ).run();
    db.prepare(
      "INSERT INTO commands (run_id, command_id, session_id, command, status, started_at) VALUES ('r', '1', 's', 'ls', 'exited', 4)",
    ).run();
    expect(() =>
      db
        .prepare(
          "INSERT INTO sessions (id, project_id, agent, title, created_at) VALUES ('t', 'p', 'terminal', 'T', 5)",
        )
        .run(),
    ).toThrow(/CHECK/);

    expect(applyMigrations(db, MIGRATIONS_DIR)).toContain(12);
    expect(db.prepare('SELECT id, agent FROM sessions').all()).toEqual([{ id: 's', agent: 'shell' }]);
    expect(db.prepare('SELECT id FROM runs').all()).toEqual([{ id: 'r' }]);
    expect(db.prepare('SELECT command FROM commands').all()).toEqual([{ command: 'ls' }]);
    db.prepare(
      "INSERT INTO sessions (id, project_id, agent, title, created_at) VALUES ('t', 'p', 'terminal', 'T', 5)",
    ).run();
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    // The references still cascade from the rebuilt table.
    db.prepare("DELETE FROM sessions WHERE id = 's'").run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM runs').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM commands').get()).toEqual({ n: 0 });
    db.close();
  });
});
