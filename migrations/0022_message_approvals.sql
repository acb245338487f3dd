-- foreign_keys: off
-- MSG-4: a message from another session that needs the person's approval is asked for as an
-- approval of kind 'message'. SQLite cannot change a CHECK in place, so the table is rebuilt
-- (nothing references it).
CREATE TABLE approvals_new (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  run_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('command', 'fileChange', 'permissions', 'tool', 'question', 'message')),
  command TEXT NOT NULL,
  reason TEXT,
  detail TEXT,
  questions TEXT NOT NULL DEFAULT '[]',
  suggestions TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL,
  decision TEXT CHECK (decision IN ('accept', 'acceptForSession', 'decline', 'cancel')),
  answers TEXT,
  expired TEXT,
  answered_at INTEGER,
  item_id TEXT
);
INSERT INTO approvals_new (id, session_id, run_id, kind, command, reason, detail, questions, suggestions, created_at, decision, answers, expired, answered_at, item_id)
  SELECT id, session_id, run_id, kind, command, reason, detail, questions, suggestions, created_at, decision, answers, expired, answered_at, item_id FROM approvals;
DROP TABLE approvals;
ALTER TABLE approvals_new RENAME TO approvals;
CREATE INDEX approvals_open ON approvals(session_id, created_at) WHERE decision IS NULL;
