import { z } from 'zod';
import { RequestPathSchema } from './files';

/** Largest diff `git.diff` answers whole; a longer one is cut there and says so (GIT-3). */
export const MAX_GIT_DIFF_BYTES = 2 * 1024 * 1024;
/** Most entries `git.status` lists (GIT-2); `truncated` says when there were more. */
export const MAX_GIT_STATUS_ENTRIES = 5000;
/** Most paths one `git.stage` / `git.unstage` takes. */
export const MAX_GIT_PATHS_PER_CALL = 500;
export const MAX_COMMIT_MESSAGE_CHARS = 64 * 1024;

const ProjectDirectory = z.string().min(1).max(4096);
const GitPath = RequestPathSchema.min(1);
/**
 * A branch name as a person typed or picked it (GIT-6): never an option (no leading `-`), no
 * control characters; `git check-ref-format --branch` judges the rest in git's own words.
 */
export const BranchNameSchema = z
  .string()
  .min(1)
  .max(250)
  .refine((name) => !name.startsWith('-'), 'a branch name cannot start with "-"')
  .refine((name) => !/\p{Cc}/u.test(name), 'a branch name cannot hold control characters');

/** Porcelain v2 status letters: `.` unchanged, `M`, `T`, `A`, `D`, `R`, `C`, `U` (unmerged), `?` untracked. */
const StatusLetter = z.enum(['.', 'M', 'T', 'A', 'D', 'R', 'C', 'U', '?']);
export type GitStatusLetter = z.infer<typeof StatusLetter>;

export const GitFileStatusSchema = z.object({
  /** Relative to the project folder, `/`-separated. */
  path: z.string(),
  /** A rename's or copy's old path. */
  origPath: z.string().optional(),
  /** What is staged (index against HEAD). */
  index: StatusLetter,
  /** What is not (work tree against index). */
  worktree: StatusLetter,
  kind: z.enum(['tracked', 'untracked', 'conflict']),
});
export type GitFileStatus = z.infer<typeof GitFileStatusSchema>;

export const GitStatusSchema = z.object({
  /** The checked-out branch; null when HEAD is detached. */
  branch: z.string().nullable(),
  /** HEAD's commit; null before the first commit. */
  head: z.string().nullable(),
  upstream: z.string().nullable(),
  /** Commits on the branch not on its upstream and the other way round (null without an upstream). */
  ahead: z.number().int().nullable(),
  behind: z.number().int().nullable(),
  files: z.array(GitFileStatusSchema),
  /** Changed paths the secrets policy keeps private: counted, never named (GIT-7). */
  privateCount: z.number().int().nonnegative(),
  truncated: z.boolean(),
  /** A merge stopped by conflicts is going on. */
  merging: z.boolean(),
  /** A rebase stopped part way (a `pull` with `pull.rebase`, say) is going on (GIT-10). */
  rebasing: z.boolean(),
});
export type GitStatus = z.infer<typeof GitStatusSchema>;

export const GitBranchSchema = z.object({
  name: z.string(),
  current: z.boolean(),
  /** A remote-tracking branch (`origin/x`) with no local branch of its name: switching makes one. */
  remote: z.boolean(),
  upstream: z.string().nullable(),
});
export type GitBranch = z.infer<typeof GitBranchSchema>;

/** What git printed for a command that changed something (commit, switch, pull, push): its own words. */
const GitOutputSchema = z.object({ output: z.string() });

const inProject = { projectDirectory: ProjectDirectory };
const InProject = z.object(inProject).strict();
const PathsInProject = z.object({ ...inProject, paths: z.array(GitPath).min(1).max(MAX_GIT_PATHS_PER_CALL) }).strict();
const BranchInProject = z.object({ ...inProject, name: BranchNameSchema }).strict();

/** Git in a project folder (GIT-1…GIT-9): each runs the system `git` once, on a person's tap. */
export const gitMethods = {
  'git.status': {
    params: InProject,
    result: GitStatusSchema,
  },
  /** One file's diff: `staged` against HEAD, else the work tree against the index; an untracked file as all new. */
  'git.diff': {
    params: z.object({ ...inProject, path: GitPath, staged: z.boolean() }).strict(),
    result: z.object({ diff: z.string(), truncated: z.boolean() }),
  },
  'git.stage': {
    params: PathsInProject,
    result: GitStatusSchema,
  },
  'git.unstage': {
    params: PathsInProject,
    result: GitStatusSchema,
  },
  'git.commit': {
    params: z.object({ ...inProject, message: z.string().trim().min(1).max(MAX_COMMIT_MESSAGE_CHARS) }).strict(),
    result: GitOutputSchema,
  },
  'git.branches': {
    params: InProject,
    result: z.object({ branches: z.array(GitBranchSchema) }),
  },
  'git.createBranch': {
    params: BranchInProject,
    result: GitOutputSchema,
  },
  /** A local branch, or a remote one (`origin/x`): then a local branch tracking it is made. */
  'git.switchBranch': {
    params: BranchInProject,
    result: GitOutputSchema,
  },
  'git.pull': {
    params: InProject,
    result: GitOutputSchema,
  },
  'git.push': {
    params: InProject,
    result: GitOutputSchema,
  },
  /** GIT-10: gives up a merge or rebase stopped on conflicts (`git merge --abort` / `git rebase --abort`); answers the new status. */
  'git.abortMerge': {
    params: InProject,
    result: GitStatusSchema,
  },
} as const;
