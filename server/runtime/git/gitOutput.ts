import { runGit } from './runGit';

/** A git command that failed, with the end of what it printed on stderr. */
export class GitCommandError extends Error {
  override readonly name = 'GitCommandError';
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    readonly exitCode: number | null,
  ) {
    super(
      `git ${args[0] ?? ''} failed: ${stderr.trim().split('\n').slice(-3).join(' ') || `exit ${exitCode ?? 'unknown'}`}`,
    );
  }
}

const GIT_TIMEOUT_MS = 60_000;
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

/**
 * The standard output of one git run in `cwd` (runGit: no shell, no prompt); a non-zero exit is a
 * GitCommandError with git's own words. Callers put `--` before paths and branches.
 */
export async function gitOutput(cwd: string, args: readonly string[]): Promise<string> {
  const run = await runGit(args, { cwd, timeoutMs: GIT_TIMEOUT_MS, maxOutputBytes: MAX_OUTPUT_BYTES });
  if (run.exitCode !== 0) throw new GitCommandError(args, run.stderr, run.exitCode);
  return run.stdout;
}
