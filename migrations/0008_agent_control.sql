-- Agent accounts and control (ACC-1, ACC-3, ACC-4, ACC-5, ACC-7).

-- ACC-1: a profile's name and the account columns its app-server reported on account/read.
ALTER TABLE codex_profiles ADD COLUMN name TEXT NOT NULL DEFAULT 'Codex';
ALTER TABLE codex_profiles ADD COLUMN auth_mode TEXT;
ALTER TABLE codex_profiles ADD COLUMN email TEXT;
ALTER TABLE codex_profiles ADD COLUMN plan_type TEXT;
ALTER TABLE codex_profiles ADD COLUMN status_reason TEXT;
ALTER TABLE codex_profiles ADD COLUMN checked_at INTEGER;

-- ACC-3: why a run failed, in words the user can act on (JSON {code, message, action}).
ALTER TABLE runs ADD COLUMN failure TEXT;

-- ACC-5: each session's agent settings (JSON SessionAgentSettings), read at the start of each turn.
CREATE TABLE session_agent_settings (
  session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  settings TEXT NOT NULL
);

-- ACC-4: what an agent asked; the first answer wins. `expired` says why it can no longer be answered.
CREATE TABLE approvals (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  run_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('command', 'fileChange', 'permissions', 'tool', 'question')),
  command TEXT NOT NULL,
  reason TEXT,
  detail TEXT,
  questions TEXT NOT NULL DEFAULT '[]',
  suggestions TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL,
  decision TEXT CHECK (decision IN ('accept', 'acceptForSession', 'decline', 'cancel')),
  answers TEXT,
  expired TEXT,
  answered_at INTEGER
);
CREATE INDEX approvals_open ON approvals(session_id, created_at) WHERE decision IS NULL;

-- ACC-7: plan-limit readings of both agents; kept 35 days.
CREATE TABLE agent_usage_samples (
  id INTEGER PRIMARY KEY,
  agent TEXT NOT NULL CHECK (agent IN ('codex', 'claude')),
  account_key TEXT NOT NULL,
  window_kind TEXT NOT NULL,
  used_percent REAL NOT NULL,
  resets_at INTEGER,
  sampled_at INTEGER NOT NULL
);
CREATE INDEX agent_usage_samples_by_window ON agent_usage_samples(agent, account_key, window_kind, sampled_at);
CREATE INDEX agent_usage_samples_by_age ON agent_usage_samples(sampled_at);
