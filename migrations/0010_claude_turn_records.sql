-- What the app saw of each Claude turn that Claude's saved conversation does not keep (TL-6): the
-- turn end from the SDK's result message (status, duration, token usage, cost, error), and the
-- uuid of the turn's last saved message, after which the saved timeline shows it.
CREATE TABLE claude_turn_records (
  app_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  -- The uuid of the message that started the turn (claude_operations.native_message_id).
  turn_id TEXT NOT NULL,
  after_message_uuid TEXT NOT NULL,
  -- The turnEnd item as JSON, as the live row showed it.
  item_json TEXT NOT NULL,
  PRIMARY KEY (app_session_id, turn_id)
);
CREATE INDEX claude_turn_records_by_anchor ON claude_turn_records (app_session_id, after_message_uuid);
