-- Real agents (SES-2, STO-1): the links from a session to the agent's own conversation. The
-- agents keep their transcripts themselves; these tables only say where to ask.

-- App-owned Codex profiles: a stable lowercase UUID; the home is codex/profiles/<id>/home under
-- the data folder, created and removed by the runtime, opened only by Codex itself.
CREATE TABLE codex_profiles (
  id TEXT PRIMARY KEY CHECK (id = lower(id)),
  status TEXT NOT NULL DEFAULT 'signed_out' CHECK (status IN ('signed_out', 'authenticated', 'unavailable')),
  created_at INTEGER NOT NULL
);

-- One Codex thread per app session. A profile row that a link names cannot be deleted.
CREATE TABLE codex_session_links (
  app_session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  profile_id TEXT NOT NULL REFERENCES codex_profiles(id) ON DELETE RESTRICT,
  codex_thread_id TEXT NOT NULL,
  rollout_path TEXT,
  status TEXT NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'profile_required', 'unavailable'))
);
CREATE UNIQUE INDEX codex_session_links_one_available ON codex_session_links(profile_id, codex_thread_id) WHERE status = 'available';

-- One app session owns one Claude conversation.
CREATE TABLE claude_sessions (
  app_session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  native_session_id TEXT NOT NULL UNIQUE
);

-- Written before the send: a retry keeps the first message UUID and run id.
CREATE TABLE claude_operations (
  app_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  operation_id TEXT NOT NULL,
  native_message_id TEXT NOT NULL,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  display_text TEXT NOT NULL,
  PRIMARY KEY (app_session_id, operation_id)
);

-- A command whose output lives only in the agent's history (OUT-7): a pointer, never bytes.
-- thread_id is the native conversation, turn_id the message holding the result, item_id the tool call.
CREATE TABLE command_output_pointers (
  run_id TEXT NOT NULL,
  command_id TEXT NOT NULL,
  thread_id TEXT NOT NULL,
  turn_id TEXT NOT NULL,
  item_id TEXT NOT NULL,
  byte_length INTEGER NOT NULL,
  PRIMARY KEY (run_id, command_id),
  FOREIGN KEY (run_id, command_id) REFERENCES commands(run_id, command_id) ON DELETE CASCADE
);

-- Where the agent's own history took over a run (SES-3): its closing text.
CREATE TABLE run_settlements (
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
