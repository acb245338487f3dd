import fs from 'node:fs';
import { runMediaChild, TranscodeError } from './mediaChild';

export interface HeifDecodeJob {
  /** The original's open descriptor: heif-convert reads it as its fd 3, so it reads exactly the checked file. */
  inputFd: number;
  /** Where the decoded picture goes (a .png path). */
  output: string;
  heifConvert: string;
  timeoutMs: number;
  /** The largest decoded file kept; a bigger one is refused like a rendition over its limit. */
  maxOutputBytes: number;
}

/**
 * Decodes a HEIC/HEIF photo to PNG with libheif's `heif-convert` (FILE-10), spawned without a shell
 * in the same bounded child slots as every transcode (FILE-11): the prebuilt libvips of sharp and
 * Debian's ffmpeg cannot decode HEIC. The image program then makes the rendition from the PNG.
 */
export async function decodeHeif(job: HeifDecodeJob, signal?: AbortSignal): Promise<void> {
  // /dev/fd/3 opens the inherited descriptor's file again (Linux and macOS alike).
  await runMediaChild(
    {
      file: job.heifConvert,
      args: ['--quiet', '/dev/fd/3', job.output],
      inputFd: job.inputFd,
      timeoutMs: job.timeoutMs,
    },
    signal,
  );
  const size = fs.statSync(job.output, { throwIfNoEntry: false })?.size ?? 0;
  if (size === 0) throw new TranscodeError('decode_failed', 'heif-convert wrote nothing');
  if (size > job.maxOutputBytes) throw new TranscodeError('too_large');
}
