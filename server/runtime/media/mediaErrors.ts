import { FILE_CHANGED_MESSAGE } from '../../../lib/protocol/files';
import { RuntimeError } from '../errors';

/** The clear refusals of FILE-11; each names its limit or reason in `data`. */
export const sourceTooLarge = (size: number, maxBytes: number) =>
  new RuntimeError(
    'too_large',
    `This file is too large to show here (${size} bytes; renditions are made of files up to ${maxBytes} bytes). Download the original instead.`,
    { reason: 'source', size, maxBytes },
  );

export const renditionTooLarge = (maxBytes: number) =>
  new RuntimeError(
    'too_large',
    `The rendition of this file would be larger than ${maxBytes} bytes. Download the original instead.`,
    { reason: 'rendition', maxBytes },
  );

export const transcodeTimedOut = (timeoutMs: number) =>
  new RuntimeError(
    'timeout',
    `Making a rendition of this file took longer than ${Math.round(timeoutMs / 1000)} s and was stopped. Download the original instead.`,
    { timeoutMs },
  );

export const notMedia = (mimeType: string) =>
  new RuntimeError(
    'unsupported_media',
    'This file is not an image, video or audio file the desktop can make a rendition of.',
    { mimeType },
  );

export const corruptMedia = (mimeType: string) =>
  new RuntimeError('corrupt_media', 'This file could not be decoded: it is damaged or not what its name says.', {
    mimeType,
  });

export const tooManyPixels = (maxPixels: number) =>
  new RuntimeError(
    'too_large',
    `This image has more than ${maxPixels} pixels, too many to decode safely here. Download the original instead.`,
    { reason: 'pixels', maxPixels },
  );

export const ffmpegMissing = (program: string) =>
  new RuntimeError(
    'media_tool_missing',
    'Video and audio need ffmpeg on the desktop, and it was not found. Install ffmpeg, then try again.',
    { program },
  );

export const heifConvertMissing = (program: string) =>
  new RuntimeError(
    'media_tool_missing',
    "HEIC photos need heif-convert on the desktop (Debian's libheif-examples package), and it was not found. Install it, then try again.",
    { program },
  );

export const mediaToolStopped = () =>
  new RuntimeError(
    'unavailable',
    'The program making this rendition stopped before it finished. Open the file again, or download the original.',
    { reason: 'media_tool_stopped' },
  );

export const sourceChanged = () => new RuntimeError('conflict', FILE_CHANGED_MESSAGE, { reason: 'file_changed' });
