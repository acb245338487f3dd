-- OUT-4: a command that settled with its source unproven and whose agent's saved copy has not
-- been read yet. Set when the read is queued, cleared once it ran; start-up reads the rest.
ALTER TABLE command_outputs ADD COLUMN saved_copy_pending INTEGER NOT NULL DEFAULT 0;
