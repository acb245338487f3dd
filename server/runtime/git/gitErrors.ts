import { RuntimeError, unavailable } from '../errors';
import { GitRunFailure, type GitRun } from './runGit';

/** Most characters of git's own words an error carries. */
const MAX_WORDS_CHARS = 16 * 1024;

/** What git said, stdout then stderr (a merge conflict is reported on stdout, a refused push on stderr). */
export function gitWords(run: Pick<GitRun, 'stdout' | 'stderr'>): string {
  const words = [run.stdout.trim(), run.stderr.trim()].filter((part) => part !== '').join('\n');
  return words.length > MAX_WORDS_CHARS ? `${words.slice(0, MAX_WORDS_CHARS)}\n…` : words;
}

export const notARepository = (projectDirectory: string) =>
  new RuntimeError(
    'not_a_repository',
    'This project folder is not a Git repository (or inside one), so there is nothing to show here.',
    { projectDirectory },
  );

/** GIT-8: a command git refused or failed, in git's words, with what was run and its exit code. */
export function gitFailed(command: string, run: GitRun): RuntimeError {
  return new RuntimeError('git_failed', gitWords(run) || `git ${command} failed (exit code ${run.exitCode}).`, {
    command,
    exitCode: run.exitCode,
  });
}

/** A run that never gave an exit code, as an answer: no git at all, or stopped at its time limit. */
export function runFailureAnswer(error: unknown, command: string): unknown {
  if (!(error instanceof GitRunFailure)) return error;
  if (error.reason === 'missing') return unavailable(error.message, { reason: 'git_missing' });
  return new RuntimeError('git_failed', error.message, { command, reason: 'timeout' });
}
