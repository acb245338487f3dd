-- What the app saw of each Codex turn that Codex's thread history does not keep (TL-1): the
-- turn's token usage (streamed live only) and its last plan (turn/plan/updated), so the saved
-- turn shows them too.
CREATE TABLE codex_turn_records (
  app_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  codex_turn_id TEXT NOT NULL,
  input_tokens INTEGER,
  output_tokens INTEGER,
  cached_input_tokens INTEGER,
  reasoning_tokens INTEGER,
  -- The plan row as JSON ({ explanation, entries, createdAt }), or null.
  plan_json TEXT,
  PRIMARY KEY (app_session_id, codex_turn_id)
);
