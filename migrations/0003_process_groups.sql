-- Process groups the runtime started and has not seen end (SES-5): running commands and agent
-- hosts. A row still here at start-up belongs to a runtime that died; its group is stopped if it
-- still lives, named by its leader's start time and the boot so a reused pid is never hit.
CREATE TABLE process_groups (
  pgid INTEGER NOT NULL,
  leader_start_ticks INTEGER NOT NULL,
  boot_id TEXT NOT NULL,
  -- The command it runs, or NULL for an agent host (purpose says which).
  run_id TEXT,
  command_id TEXT,
  purpose TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  PRIMARY KEY (boot_id, pgid, leader_start_ticks)
);
