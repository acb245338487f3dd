-- Chat attachments (ATT-1): one row per upload into a session's folder under pasted-images/.
-- confirmed_offset only moves after the bytes up to it are written and synced, so a resumed
-- upload continues from there; complete is set once the whole file's SHA-256 matched.
CREATE TABLE attachment_uploads (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  mime_type TEXT NOT NULL,
  byte_length INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  confirmed_offset INTEGER NOT NULL DEFAULT 0,
  complete INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  completed_at INTEGER
);
CREATE INDEX attachment_uploads_by_file ON attachment_uploads(session_id, sha256, byte_length);

-- The attachments a message carries, in its order; written in the chat.send transaction.
CREATE TABLE run_attachments (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  upload_id TEXT NOT NULL REFERENCES attachment_uploads(id) ON DELETE CASCADE,
  PRIMARY KEY (run_id, position)
);
CREATE INDEX run_attachments_by_upload ON run_attachments(upload_id);
