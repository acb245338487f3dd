import { spawn } from 'node:child_process';
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
const REDIRECTING_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
];

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
 * Runs the system `git` once (GIT-1): spawned without a shell (what `execFile` does), the
 * arguments as given, stdin closed after `input`, bounded output and a time limit. NOTE: spawned
 * by hand rather than with `execFile` for `detached`: git and what it starts (ssh, a credential
 * helper) then have no controlling terminal to ask on, and a stopped run takes its whole process
 * group with it.
 */
export function runGit(args: readonly string[], options: GitRunOptions): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    let timedOut = false;
    let truncated = false;
    const child = spawn('git', args, {
      cwd: options.cwd,
      env: gitEnvironment(),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const stdout = new BoundedText(options.maxOutputBytes, () => {
      truncated = true;
      stopGroup(child.pid);
    });
    const stderr = new BoundedText(options.maxOutputBytes, () => {});
    child.stdout.on('data', (chunk: Buffer) => stdout.add(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.add(chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup(child.pid);
    }, options.timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        error.code === 'ENOENT'
          ? new GitRunFailure('missing', 'Git is not installed on the desktop (no `git` program on its PATH).')
          : error,
      );
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut)
        return reject(
          new GitRunFailure(
            'timeout',
            `git ${args[0] ?? ''} did not finish within ${Math.round(options.timeoutMs / 1000)} s and was stopped.`,
          ),
        );
      resolve({ stdout: stdout.text(), stderr: stderr.text(), exitCode: truncated ? 0 : (code ?? 1), truncated });
    });
    child.stdin.on('error', () => {}); // git may exit before reading its input: the exit code tells.
    child.stdin.end(options.input ?? '');
  });
}

/** Output kept up to a byte limit; `onFull` once when more arrives. */
class BoundedText {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private full = false;
  constructor(
    private readonly limit: number,
    private readonly onFull: () => void,
  ) {}

  add(chunk: Buffer): void {
    if (this.full) return;
    const room = this.limit - this.bytes;
    this.chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    this.bytes += Math.min(room, chunk.length);
    if (chunk.length > room) {
      this.full = true;
      this.onFull();
    }
  }

  /** NOTE: a cut inside a character leaves a replacement character at the end, never a wrong one. */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

function stopGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group already ended.
  }
}
