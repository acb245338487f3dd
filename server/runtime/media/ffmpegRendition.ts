import fs from 'node:fs';
import type { RenditionKind } from '../../../lib/protocol/files';
import type { RenditionSize } from './imageJob';
import { runMediaChild, TranscodeError } from './mediaChild';

export interface TranscodeJob {
  /** The original's open descriptor: ffmpeg reads it as its fd 3, so it reads exactly the checked file. */
  inputFd: number;
  output: string;
  /**
   * Where ffmpeg writes a streamed MP4 (FILE-16): the part file, opened for writing and handed to
   * it as its stdout, which it sees as a pipe, so it never seeks back over bytes already read.
   */
  outputFd?: number;
  /** A video or audio rendition, or a video's first frame as a still (FILE-14). */
  kind: RenditionKind;
  audioOnly: boolean;
  size: RenditionSize;
  ffmpeg: string;
  maxOutputBytes: number;
  timeoutMs: number;
}

type StreamKind = Extract<RenditionKind, 'mp4' | 'webm'>;

const VIDEO_CODECS: Record<StreamKind, string[]> = {
  // H.264 High and AAC with the index first (+faststart), so a player starts before the end arrives.
  mp4: [
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '26',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-b:a',
    '128k',
    '-ac',
    '2',
    '-movflags',
    '+faststart',
  ],
  webm: [
    '-c:v',
    'libvpx-vp9',
    '-deadline',
    'realtime',
    '-cpu-used',
    '8',
    '-row-mt',
    '1',
    '-crf',
    '36',
    '-b:v',
    '0',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'libopus',
    '-b:a',
    '96k',
    '-ac',
    '2',
  ],
};
const AUDIO_CODECS: Record<StreamKind, string[]> = {
  mp4: ['-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-movflags', '+faststart'],
  webm: ['-c:a', 'libopus', '-b:a', '96k', '-ac', '2'],
};

const FRAGMENTED_MP4 = 'frag_keyframe+empty_moov+default_base_moof';

/** A still of the first frame (FILE-14): ffmpeg reads only the head of the original for it. */
const STILL_CODECS: Record<Exclude<RenditionKind, StreamKind>, string[]> = {
  jpeg: ['-frames:v', '1', '-c:v', 'mjpeg', '-q:v', '4', '-f', 'mjpeg'],
  webp: ['-frames:v', '1', '-c:v', 'libwebp', '-quality', '80', '-f', 'webp'],
};

/** The command line of one transcode (FILE-10): first video and audio stream, fitted in the box, never enlarged. */
export function ffmpegArguments(job: TranscodeJob, input: string): string[] {
  const { maxWidth: w, maxHeight: h } = job.size;
  const fit = `scale=w='min(${w},iw)':h='min(${h},ih)':force_original_aspect_ratio=decrease:force_divisible_by=2`;
  const kind = job.kind;
  if (kind === 'jpeg' || kind === 'webp')
    return [
      '-hide_banner',
      '-nostdin',
      '-v',
      'error',
      '-i',
      input,
      '-map',
      '0:v:0',
      '-an',
      '-sn',
      '-dn',
      '-vf',
      fit,
      ...STILL_CODECS[kind],
      '-fs',
      String(job.maxOutputBytes + 1),
      '-y',
      job.output,
    ];
  if (job.outputFd !== undefined && kind === 'mp4') {
    // Fragmented MP4 (FILE-16): an empty index first, then a fragment from each keyframe, one every 2 s.
    const streams = job.audioOnly
      ? ['-map', '0:a:0', '-vn', ...AUDIO_CODECS.mp4]
      : [
          '-map',
          '0:v:0',
          '-map',
          '0:a:0?',
          '-vf',
          fit,
          ...VIDEO_CODECS.mp4,
          '-force_key_frames',
          'expr:gte(t,n_forced*2)',
        ];
    const fragmented = streams.map((arg) => (arg === '+faststart' ? FRAGMENTED_MP4 : arg));
    return [
      '-hide_banner',
      '-nostdin',
      '-v',
      'error',
      '-i',
      input,
      '-sn',
      '-dn',
      ...fragmented,
      '-fs',
      String(job.maxOutputBytes + 1),
      '-f',
      'mp4',
      'pipe:1',
    ];
  }
  const streams = job.audioOnly
    ? ['-map', '0:a:0', '-vn', ...AUDIO_CODECS[kind]]
    : ['-map', '0:v:0', '-map', '0:a:0?', '-vf', fit, ...VIDEO_CODECS[kind]];
  // NOTE: -fs stops writing just past the limit; the size is checked after exit (a cut file is refused).
  return [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    '-i',
    input,
    '-sn',
    '-dn',
    ...streams,
    '-fs',
    String(job.maxOutputBytes + 1),
    '-f',
    kind,
    '-y',
    job.output,
  ];
}

/**
 * Runs one transcode in an ffmpeg child process (FILE-10, FILE-11), stopped with SIGKILL when it
 * runs past `timeoutMs` or when `signal` aborts (the runtime stops). Resolves when the output is
 * complete and within the limit; a failure is a `TranscodeError` saying which.
 */
export async function runFfmpegTranscode(job: TranscodeJob, signal?: AbortSignal): Promise<void> {
  // On Linux /dev/fd/3 opens the inherited descriptor's file again, seekable (an MP4's index may be at its end).
  const input = process.platform === 'linux' ? '/dev/fd/3' : 'pipe:3';
  await runMediaChild(
    {
      file: job.ffmpeg,
      args: ffmpegArguments(job, input),
      inputFd: job.inputFd,
      outputFd: job.outputFd,
      timeoutMs: job.timeoutMs,
    },
    signal,
  );
  const size = fs.statSync(job.output, { throwIfNoEntry: false })?.size ?? 0;
  if (size > job.maxOutputBytes) throw new TranscodeError('too_large');
  if (size === 0) throw new TranscodeError('decode_failed');
}
