-- UX-8: when each device last opened each session, so the list can say a session finished with
-- something it has not seen ("done, unread") on that device, across reloads. `viewer` is a device
-- id, or '' for the scripts' token. Sessions already there count as seen by every device now,
-- so an upgrade does not mark every old session unread.
CREATE TABLE session_views (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  viewer TEXT NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, viewer)
) WITHOUT ROWID;
INSERT INTO session_views (session_id, viewer, seen_at)
  SELECT s.id, d.id, CAST(strftime('%s', 'now') AS INTEGER) * 1000 FROM sessions s, devices d;

-- UX-8: the title the agent itself gave the conversation (Codex's thread name, Claude's summary),
-- listed while the person has not renamed the session.
ALTER TABLE sessions ADD COLUMN agent_title TEXT;
