import { childProgram } from '../process/childProgram';
import { FAILURE_OF_EXIT, type ImageJob } from './imageJob';
import { runMediaChild } from './mediaChild';

/**
 * Runs `job` in a child process of the image program (FILE-11), its input the open original as fd 3
 * when `inputFd` is given; killed past `timeoutMs` or when `signal` aborts.
 */
export function runImageChild(job: ImageJob, inputFd: number | undefined, signal?: AbortSignal): Promise<void> {
  const program = childProgram('imageRenderer');
  return runMediaChild(
    {
      file: program.file,
      args: [...program.args, JSON.stringify(job)],
      ...(inputFd === undefined ? {} : { inputFd }),
      timeoutMs: job.timeoutMs,
      exitCodes: FAILURE_OF_EXIT,
    },
    signal,
  );
}
