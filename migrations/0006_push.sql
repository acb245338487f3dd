-- Web Push subscriptions of each paired device (PUSH-1): one row per push endpoint, with the
-- browser's encryption keys and the events the device chose. A revoked device's rows are deleted.
CREATE TABLE push_subscriptions (
  endpoint TEXT PRIMARY KEY,
  device_id TEXT NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  p256dh TEXT NOT NULL,
  auth TEXT NOT NULL,
  -- JSON object of booleans: approval, turnFinished, failed.
  events TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX push_subscriptions_by_device ON push_subscriptions (device_id);
