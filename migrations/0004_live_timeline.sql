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

-- One live timeline: the revision of its newest write.
CREATE TABLE chat_live_timeline_overlays (
  app_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  timeline_target_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  PRIMARY KEY (app_session_id, timeline_target_id)
);

-- Its live rows, one JSON item each, whole texts included, in the order they first appeared. One
-- row per item, not one JSON of the whole timeline, so that a change of one item never rewrites
-- the others (a 10 MiB tool result is written when it changes, not on every streamed word).
CREATE TABLE chat_live_timeline_overlay_items (
  app_session_id TEXT NOT NULL,
  timeline_target_id TEXT NOT NULL,
  item_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  position INTEGER NOT NULL,
  item_json TEXT NOT NULL,
  PRIMARY KEY (app_session_id, timeline_target_id, item_id),
  FOREIGN KEY (app_session_id, timeline_target_id) REFERENCES chat_live_timeline_overlays(app_session_id, timeline_target_id) ON DELETE CASCADE
);
CREATE INDEX chat_live_timeline_overlay_items_by_run ON chat_live_timeline_overlay_items(app_session_id, run_id);

-- Ended runs whose live rows are not yet replaced by saved history: written before the runtime
-- forgets the active run, deleted once every timeline of the run is reconciled.
CREATE TABLE chat_pending_terminal_overlay_cleanups (
  app_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  run_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (app_session_id, run_id)
);
