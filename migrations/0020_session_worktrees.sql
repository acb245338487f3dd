-- SES-10: a session may have a branch and a git worktree of its own, where its agent runs; both
-- null for a session that works in its project folder.
ALTER TABLE sessions ADD COLUMN worktree_branch TEXT;
ALTER TABLE sessions ADD COLUMN worktree_path TEXT;
