-- foreign_keys: off
-- Terminal sessions (TERM-1): sessions.agent also takes 'terminal'. SQLite cannot change a CHECK
-- in place, so the table is rebuilt (SQLite's documented procedure: with foreign keys off, so the
-- drop cascades to nothing; every reference is checked before the transaction commits).
CREATE TABLE sessions_new (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id),
  agent TEXT NOT NULL CHECK (agent IN ('shell', 'codex', 'claude', 'terminal')),
  title TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
INSERT INTO sessions_new (id, project_id, agent, title, created_at) SELECT id, project_id, agent, title, created_at FROM sessions;
DROP TABLE sessions;
ALTER TABLE sessions_new RENAME TO sessions;
CREATE INDEX sessions_by_project ON sessions(project_id, created_at);
