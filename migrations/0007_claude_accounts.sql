-- Claude accounts (ACC-2): each added account is a folder claude/accounts/<id>/ under the data
-- folder; the main Claude folder is the account `default` and has no row here.

-- App-wide settings, one value per key (`claude.activeAccount`: `default` or an account id).
CREATE TABLE IF NOT EXISTS app_settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE claude_accounts (
  id TEXT PRIMARY KEY CHECK (id = lower(id)),
  label TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

-- An API key entered in the app for an account (`default` or an added one): runs of that account
-- get it as ANTHROPIC_API_KEY. It never leaves this table except into that variable.
CREATE TABLE claude_account_api_keys (
  account_id TEXT PRIMARY KEY,
  api_key TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
