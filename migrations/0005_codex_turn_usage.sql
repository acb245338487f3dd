-- Token usage of each Codex turn the app ran (TL-1): Codex streams it live but keeps none of it
-- in the thread history, so the turn-end row of a saved turn reads it from here.
CREATE TABLE codex_turn_usage (
  app_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  codex_turn_id TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cached_input_tokens INTEGER,
  reasoning_tokens INTEGER,
  PRIMARY KEY (app_session_id, codex_turn_id)
);
