import {
  MAX_MEDIA_RENDITION_BYTES,
  MAX_MEDIA_SOURCE_BYTES,
  MEDIA_TRANSCODE_TIMEOUT_MS,
} from '../../../lib/protocol/files';

/** What making renditions may take (FILE-11); tests shorten them to bytes and milliseconds. */
export interface MediaLimits {
  /** The largest original a rendition is made of. */
  maxSourceBytes: number;
  /** The largest rendition; a transcode that grows past it is stopped. */
  maxRenditionBytes: number;
  /** How long one transcode may run before it is stopped. */
  timeoutMs: number;
  /** How long a read past the written part of a growing rendition waits for bytes before answering none (FILE-16). */
  growingWaitMs: number;
  /** How many renditions are made at once; the others wait their turn. */
  concurrentTranscodes: number;
  /** What the kept renditions in the data folder may take together; the least recently read go first. */
  cacheBytes: number;
  /** The most pixels an image may have to be decoded (a decompression bomb is refused, FILE-11). */
  maxImagePixels: number;
  /** The ffmpeg program: a name looked up on PATH, or a path. */
  ffmpeg: string;
  /** libheif's heif-convert, which decodes HEIC photos: a name looked up on PATH, or a path. */
  heifConvert: string;
}

export const DEFAULT_MEDIA_LIMITS: MediaLimits = {
  maxSourceBytes: MAX_MEDIA_SOURCE_BYTES,
  maxRenditionBytes: MAX_MEDIA_RENDITION_BYTES,
  timeoutMs: MEDIA_TRANSCODE_TIMEOUT_MS,
  growingWaitMs: 10_000,
  concurrentTranscodes: 2,
  cacheBytes: 2 * 1024 * 1024 * 1024,
  // About 16384 × 16384, sharp's own default.
  maxImagePixels: 268_402_689,
  ffmpeg: 'ffmpeg',
  heifConvert: 'heif-convert',
};
