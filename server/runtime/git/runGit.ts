import { execFile } from 'node:child_process';

/** A git command that failed, with the end of what it printed on stderr. */
export class GitCommandError extends Error {
  override readonly name = 'GitCommandError';
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    readonly exitCode: number | null,
  ) {
    super(`git ${args[0] ?? ''} failed: ${stderr.trim().split('\n').slice(-3).join(' ') || `exit ${exitCode ?? 'unknown'}`}`);
  }
}

const GIT_TIMEOUT_MS = 60_000;

/**
 * Runs the system git in `cwd` without a shell, so no argument is ever read as shell syntax; it
 * never asks for a password (GIT_TERMINAL_PROMPT=0), and its messages are in English (LC_ALL=C)
 * so the app shows the same words on every computer. Callers put `--` before paths and branches.
 */
export function runGit(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      { cwd, encoding: 'utf8', maxBuffer: 8 * 1024 * 1024, timeout: GIT_TIMEOUT_MS, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' } },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const code = typeof error.code === 'number' ? error.code : null;
        reject(new GitCommandError(args, stderr || error.message, code));
      },
    );
  });
}
