import { execFile } from 'node:child_process';
import { childEnvironment } from '../process/childEnvironment';

export interface GitRun {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** stdout reached `maxOutputBytes` and the rest was not read (git was stopped). */
  truncated: boolean;
}

export interface GitRunOptions {
  cwd: string;
  /** Written to git's stdin, then closed (a commit message: never an argument, GIT-5). */
  input?: string;
  timeoutMs: number;
  /** Bytes of stdout (and, separately, stderr) kept; past it git is stopped and the run is `truncated`. */
  maxOutputBytes: number;
}

/** Why a run did not give an exit code: git missing, or stopped at its time limit. */
export class GitRunFailure extends Error {
  override readonly name = 'GitRunFailure';
  constructor(
    readonly reason: 'missing' | 'timeout',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Variables that would point git at another repository than the project's, or that a
 * runtime started from a git hook would carry; the person's own credential settings stay.
 */
const REDIRECTING_VARIABLES = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_COMMON_DIR', 'GIT_NAMESPACE', 'GIT_PREFIX'];

/**
 * GIT-1: a prompt for a password fails at once instead of waiting for a person who is not at
 * the desktop; pathspecs are taken literally, so a path named `*` or `:(top)` is that path only.
 */
export function gitEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env = childEnvironment({ GIT_TERMINAL_PROMPT: '0', GIT_LITERAL_PATHSPECS: '1', GIT_OPTIONAL_LOCKS: '0' }, base);
  for (const name of REDIRECTING_VARIABLES) delete env[name];
  return env;
}

/**
 * Runs the system `git` once (GIT-1): no shell, the arguments as given, stdin closed after
 * `input`, bounded output and a time limit. NOTE: detached, so git and what it starts (ssh, a
 * credential helper) have no controlling terminal to ask on, and a stopped run takes its whole
 * process group with it.
 */
export function runGit(args: readonly string[], options: GitRunOptions): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    let timedOut = false;
    const child = execFile(
      'git',
      args,
      { cwd: options.cwd, env: gitEnvironment(), detached: true, maxBuffer: options.maxOutputBytes, encoding: 'utf8', windowsHide: true },
      (error, stdout, stderr) => {
        clearTimeout(timer);
        const code = (error as NodeJS.ErrnoException | null)?.code;
        if (code === 'ENOENT') return reject(new GitRunFailure('missing', 'Git is not installed on the desktop (no `git` program on its PATH).'));
        if (timedOut) return reject(new GitRunFailure('timeout', `git ${args[0] ?? ''} did not finish within ${Math.round(options.timeoutMs / 1000)} s and was stopped.`));
        const truncated = code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
        if (truncated) stopGroup(child.pid);
        const exitCode = error ? (typeof error.code === 'number' ? error.code : truncated ? 0 : 1) : 0;
        resolve({ stdout, stderr, exitCode, truncated });
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup(child.pid);
    }, options.timeoutMs);
    child.stdin?.on('error', () => {}); // git may exit before reading its input: the exit code tells.
    child.stdin?.end(options.input ?? '');
  });
}

function stopGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group already ended.
  }
}
