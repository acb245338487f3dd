-- Projects are the folders the runtime was started with (SES-1).
CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  directory TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);

-- sessions.agent is fixed at creation (SES-1); nothing updates it.
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id),
  agent TEXT NOT NULL CHECK (agent IN ('shell', 'codex', 'claude')),
  title TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX sessions_by_project ON sessions(project_id, created_at);

-- Paired devices; only a SHA-256 of each token is kept (SEC-1).
CREATE TABLE devices (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  token_hash BLOB NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER,
  revoked_at INTEGER
);

-- Single-use pairing codes, hashed, short-lived (RPC-2).
CREATE TABLE pairing_codes (
  code_hash BLOB PRIMARY KEY,
  expires_at INTEGER NOT NULL,
  redeemed_at INTEGER
);

-- One run per accepted user message. state: queued | running | done | failed | cancelled.
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  operation_id TEXT NOT NULL,
  text TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  ended_at INTEGER,
  UNIQUE (session_id, operation_id)
);
CREATE INDEX runs_by_session ON runs(session_id, seq);

-- One command an agent ran inside a run (SES-3). Output bytes live in command_outputs' files.
CREATE TABLE commands (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  command_id TEXT NOT NULL,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  command TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'exited', 'failed', 'cancelled')),
  exit_code INTEGER,
  error TEXT,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  PRIMARY KEY (run_id, command_id)
);
CREATE INDEX commands_by_session ON commands(session_id, started_at);

-- The command-output catalog (OUT-1). Owned by the base session; deleted explicitly in the
-- session delete transaction, before the files go (OUT-6).
CREATE TABLE command_outputs (
  run_id TEXT NOT NULL,
  command_id TEXT NOT NULL,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  file_name TEXT NOT NULL UNIQUE,
  byte_length INTEGER NOT NULL DEFAULT 0,
  generation INTEGER NOT NULL DEFAULT 1,
  complete INTEGER NOT NULL DEFAULT 0,
  source_incomplete INTEGER NOT NULL DEFAULT 1,
  storage_error TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, command_id)
);
CREATE INDEX command_outputs_by_session ON command_outputs(session_id);

-- Write-ahead appends (OUT-2): a row exists only while its bytes are on their way to the file.
CREATE TABLE command_output_pending_appends (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL,
  command_id TEXT NOT NULL,
  expected_offset INTEGER NOT NULL,
  length INTEGER NOT NULL,
  generation INTEGER NOT NULL,
  sha256 BLOB NOT NULL,
  FOREIGN KEY (run_id, command_id) REFERENCES command_outputs(run_id, command_id) ON DELETE CASCADE
);
CREATE INDEX pending_appends_by_output ON command_output_pending_appends(run_id, command_id);

-- The outbox identity claim (STO-2): one fingerprint per (session, operation), forever.
CREATE TABLE chat_outbox_operation_identity (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  operation_id TEXT NOT NULL,
  request_fingerprint BLOB NOT NULL,
  PRIMARY KEY (session_id, operation_id)
);

-- Messages accepted for an agent and not yet handed to it (STO-2). Delivered entries are removed.
CREATE TABLE chat_outbox (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  operation_id TEXT NOT NULL,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  queued_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, operation_id)
);

-- The remote idempotency ledger (STO-3): the outcome of each mutating call for 48 hours.
CREATE TABLE remote_rpc_idempotency (
  scope_key TEXT PRIMARY KEY,
  session_id TEXT,
  request_fingerprint BLOB NOT NULL,
  response_json TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX remote_rpc_idempotency_by_expiry ON remote_rpc_idempotency(expires_at);
CREATE INDEX remote_rpc_idempotency_by_session ON remote_rpc_idempotency(session_id);
