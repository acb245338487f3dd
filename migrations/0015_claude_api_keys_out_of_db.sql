-- ACC-10: API keys entered in the app leave the database for owner-only files in the data folder
-- (claude/api-keys/<account id>). SQL cannot write those files, so the old table becomes a queue
-- that the runtime drains at start (each row to its file, then deleted with secure_delete, the
-- database vacuumed and the WAL truncated). Nothing writes to it any more.
ALTER TABLE claude_account_api_keys RENAME TO claude_api_keys_to_move;
