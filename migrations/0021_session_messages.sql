-- MSG-1: one message an agent in one session sent to another session of this desktop. It is
-- written in the transaction that queues the recipient's run (MSG-2), so a message is never queued
-- without its record nor recorded without its queue entry. A retry of the same tool call (same
-- sender session and call id) finds the same row. `hop` counts how far a chain of messages went
-- (MSG-3); `delivery` says whether the run was handed on, waits for the person, or was declined
-- (MSG-4). The record goes with either session (MSG-5).
CREATE TABLE chat_session_messages (
  operation_id TEXT PRIMARY KEY,
  recipient_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  sender_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  sender_call_id TEXT NOT NULL,
  sender_run_id TEXT,
  chain_id TEXT NOT NULL,
  hop INTEGER NOT NULL CHECK (hop >= 1),
  delivery TEXT NOT NULL CHECK (delivery IN ('sent', 'needs-approval', 'declined')),
  created_at INTEGER NOT NULL,
  UNIQUE (sender_session_id, sender_call_id)
);
CREATE INDEX chat_session_messages_by_recipient ON chat_session_messages(recipient_session_id, operation_id);
