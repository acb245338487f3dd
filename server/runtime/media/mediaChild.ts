import { spawn, type ChildProcess } from 'node:child_process';

/** How a media child process ended when it did not do its job. */
export type TranscodeFailure =
  'missing_program' | 'timeout' | 'too_large' | 'too_many_pixels' | 'decode_failed' | 'stopped';

export class TranscodeError extends Error {
  constructor(
    readonly failure: TranscodeFailure,
    /** The child's last words, for the log only: never sent to a client. */
    readonly detail = '',
  ) {
    super(`media child failed: ${failure}`);
    this.name = 'TranscodeError';
  }
}

export interface MediaChildJob {
  file: string;
  args: string[];
  /** The original's open descriptor, handed to the child as its fd 3 (it reads exactly the checked file). */
  inputFd?: number;
  /** A file opened for writing, handed to the child as its stdout (a streamed rendition, FILE-16). */
  outputFd?: number;
  timeoutMs: number;
  /** Exit codes the child uses to say why it failed (the image program's); any other is `decode_failed`. */
  exitCodes?: Readonly<Record<number, TranscodeFailure>>;
}

/** What a child keeps of its error output for the log. */
const STDERR_TAIL_BYTES = 4096;

/**
 * Runs one media child process (ffmpeg, heif-convert, the image program) without a shell (FILE-11):
 * stopped with SIGKILL past `timeoutMs` or when `signal` aborts (the runtime stops). A child killed
 * by anyone else is `stopped`, so a crash is told apart from a damaged file.
 */
export function runMediaChild(job: MediaChildJob, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    const stdout: number | 'ignore' = job.outputFd ?? 'ignore';
    const stdio: (number | 'ignore' | 'pipe')[] =
      job.inputFd === undefined ? ['ignore', stdout, 'pipe'] : ['ignore', stdout, 'pipe', job.inputFd];
    try {
      child = spawn(job.file, job.args, { stdio });
    } catch {
      return reject(new TranscodeError('missing_program'));
    }
    let stderr = '';
    let stoppedFor: TranscodeFailure | null = null;
    const stop = (failure: TranscodeFailure) => {
      stoppedFor ??= failure;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop('timeout'), job.timeoutMs);
    const onAbort = () => stop('stopped');
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_TAIL_BYTES);
    });
    const settle = (outcome: TranscodeError | null) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (outcome) reject(outcome);
      else resolve();
    };
    child.once('error', (error: NodeJS.ErrnoException) =>
      settle(new TranscodeError(error.code === 'ENOENT' ? 'missing_program' : 'decode_failed', error.message)),
    );
    child.once('close', (code, killedBy) => {
      if (stoppedFor) return settle(new TranscodeError(stoppedFor, stderr));
      if (killedBy) return settle(new TranscodeError('stopped', `${killedBy}: ${stderr}`));
      if (code !== 0) return settle(new TranscodeError(job.exitCodes?.[code ?? -1] ?? 'decode_failed', stderr));
      settle(null);
    });
  });
}
