-- SES-9: an agent host's processes are marked by a variable in their environment (the tag), since
-- a tool of the agent may start its commands in sessions and groups of their own. A row with a tag
-- also stands for every live process that carries it, whatever its group.
ALTER TABLE process_groups ADD COLUMN env_tag TEXT;
