-- The live overlay (TL-3): while a turn runs, its live item rows are kept here per app session and
-- timeline target (the app session id for the session's own timeline, a subagent's item id for
-- that subagent's), until the agent's saved history has them.

-- One revision counter for every overlay: it only grows, so a new target never reuses the
-- revision of a deleted one; 2^53 - 1 is the largest integer a JSON client reads exactly.
CREATE TABLE chat_live_timeline_overlay_revisions (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  revision INTEGER NOT NULL CHECK (revision >= 0 AND revision <= 9007199254740991)
);
INSERT INTO chat_live_timeline_overlay_revisions (singleton, revision) VALUES (1, 0);

-- The live rows of one timeline as JSON ({"entries": [...]}), whole texts included.
CREATE TABLE chat_live_timeline_overlays (
  app_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  timeline_target_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  snapshot_json TEXT NOT NULL,
  PRIMARY KEY (app_session_id, timeline_target_id)
);

-- Ended runs whose live rows are not yet replaced by saved history: written before the runtime
-- forgets the active run, deleted once every timeline of the run is reconciled.
CREATE TABLE chat_pending_terminal_overlay_cleanups (
  app_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  run_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (app_session_id, run_id)
);
