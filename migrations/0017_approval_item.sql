-- The agent's item an approval is asked for (ACC-4): a Codex command or file change, a Claude
-- tool call. Its row says "waiting for your approval" instead of running with a timer and Stop.
ALTER TABLE approvals ADD COLUMN item_id TEXT;
