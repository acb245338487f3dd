-- ATT-3: attachment quotas. Each upload remembers the device that began it (NULL: the runtime's
-- own token, or an upload older than this migration) and when a chunk last arrived, so uploads
-- abandoned half-way expire and give their reservation back.
ALTER TABLE attachment_uploads ADD COLUMN device_id TEXT;
ALTER TABLE attachment_uploads ADD COLUMN touched_at INTEGER;
CREATE INDEX attachment_uploads_unfinished ON attachment_uploads(complete, touched_at);
CREATE INDEX attachment_uploads_by_device ON attachment_uploads(device_id);
