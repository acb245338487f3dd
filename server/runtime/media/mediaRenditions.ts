import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MEDIA_CHUNK_BYTES, type MediaChunk, type RenditionKind } from '../../../lib/protocol/files';
import { invalidParams, RuntimeError } from '../errors';
import { contentVersionOf } from '../files/contentVersion';
import { mediaFamilyOf, mimeTypeForPath, type MediaFamily } from '../../../lib/protocol/mimeTypes';
import type { KeptFile, ProjectFiles } from '../files/projectFiles';
import { readChunkFromOpenFile, readFully } from '../files/readChunk';
import type { Logger } from '../log';
import { runFfmpegTranscode } from './ffmpegRendition';
import { GrowingRendition } from './growingRendition';
import { decodeHeif } from './heifDecode';
import { runImageChild } from './imageChild';
import type { RenditionSize } from './imageJob';
import { TranscodeError, type TranscodeFailure } from './mediaChild';
import {
  corruptMedia,
  ffmpegMissing,
  heifConvertMissing,
  mediaToolStopped,
  notMedia,
  renditionTooLarge,
  sourceChanged,
  sourceTooLarge,
  tooManyPixels,
  transcodeTimedOut,
} from './mediaErrors';
import type { MediaLimits } from './mediaLimits';
import { RenditionCache, type CachedRendition } from './renditionCache';
import { TranscodeSlots } from './transcodeSlots';

export interface RenditionRequest {
  projectDirectory: string;
  path: string;
  maxWidth?: number;
  maxHeight?: number;
  kind?: RenditionKind;
  /** The version the caller pinned at its first chunk (FILE-12). */
  contentVersion?: string;
}

/** A rendition ready to read (kept, or still being made: FILE-16), and what its chunks say about the original. */
export interface ReadyRendition {
  rendition: CachedRendition | null;
  growing: GrowingRendition | null;
  mimeType: string;
  contentVersion: string;
  modifiedAt: number;
  originalByteCount: number;
}

type Family = MediaFamily;

/** The box a rendition fits in when the caller names none: a large phone screen for images, 720p for video. */
const DEFAULT_BOX: Record<Family, RenditionSize> = {
  image: { maxWidth: 2048, maxHeight: 2048 },
  video: { maxWidth: 1280, maxHeight: 720 },
  audio: { maxWidth: 1, maxHeight: 1 },
};
const DEFAULT_KIND: Record<Family, RenditionKind> = { image: 'webp', video: 'mp4', audio: 'mp4' };
// A video's jpeg or webp is its first frame as a still (FILE-14), shown while its transcode runs.
const KINDS_OF: Record<Family, readonly RenditionKind[]> = {
  image: ['jpeg', 'webp'],
  video: ['mp4', 'webm', 'jpeg', 'webp'],
  audio: ['mp4', 'webm'],
};
const RENDITION_MIME: Record<Family, Record<RenditionKind, string>> = {
  image: { jpeg: 'image/jpeg', webp: 'image/webp', mp4: '', webm: '' },
  video: { jpeg: 'image/jpeg', webp: 'image/webp', mp4: 'video/mp4', webm: 'video/webm' },
  audio: { jpeg: '', webp: '', mp4: 'audio/mp4', webm: 'audio/webm' },
};

/**
 * `files.readMediaRendition` (FILE-10…FILE-12): images fitted to the asked box as JPEG or WebP
 * (sharp), video and audio as H.264/AAC MP4 or VP9/Opus WebM (ffmpeg child processes, a few at a
 * time). Each rendition is made once per version of its original and kept in a bounded cache;
 * callers asking for one being made wait for it. The original is opened and checked like any
 * `files.readBinary` (FILE-3, FILE-6, SEC-7) and its version is pinned.
 */
export class MediaRenditions {
  private readonly cache: RenditionCache;
  private readonly slots: TranscodeSlots;
  private readonly making = new Map<string, Promise<CachedRendition>>();
  private readonly growing = new Map<string, GrowingRendition>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly files: ProjectFiles,
    cacheFolder: string,
    private readonly limits: MediaLimits,
    private readonly log: Logger,
  ) {
    this.cache = new RenditionCache(cacheFolder, limits.cacheBytes);
    this.slots = new TranscodeSlots(limits.concurrentTranscodes);
  }

  /** The rendition asked for, made now when it is not kept yet. */
  async prepare(request: RenditionRequest): Promise<ReadyRendition> {
    const source = this.files.openKept(request.projectDirectory, request.path);
    let handedOver = false;
    try {
      const contentVersion = contentVersionOf(source.realPath, source.stat);
      if (request.contentVersion !== undefined && request.contentVersion !== contentVersion) throw sourceChanged();
      const sourceType = mimeTypeForPath(source.realPath);
      const family = mediaFamilyOf(sourceType);
      if (!family) throw notMedia(sourceType);
      if (source.stat.size > this.limits.maxSourceBytes)
        throw sourceTooLarge(source.stat.size, this.limits.maxSourceBytes);
      const kind = request.kind ?? DEFAULT_KIND[family];
      if (!KINDS_OF[family].includes(kind))
        throw invalidParams(`A ${family} rendition is made as ${KINDS_OF[family].join(' or ')}, not ${kind}.`, {
          kind,
        });
      const box = {
        maxWidth: request.maxWidth ?? DEFAULT_BOX[family].maxWidth,
        maxHeight: request.maxHeight ?? DEFAULT_BOX[family].maxHeight,
      };
      if (family === 'audio') Object.assign(box, DEFAULT_BOX.audio);
      const key = RenditionCache.keyOf([contentVersion, family, kind, box.maxWidth, box.maxHeight]);
      const about = {
        mimeType: RENDITION_MIME[family][kind],
        contentVersion,
        modifiedAt: Math.floor(source.stat.mtimeMs),
        originalByteCount: source.stat.size,
      };
      const kept = this.cache.get(key);
      if (kept) return { rendition: kept, growing: null, ...about };
      if (kind === 'mp4') {
        // FILE-16: video and audio MP4 is read while it is made.
        let growing = this.growing.get(key);
        if (!growing) {
          growing = this.startGrowing(key, source, box, family === 'audio', sourceType);
          handedOver = true;
        }
        return { rendition: null, growing, ...about };
      }
      const rendition = await this.makeOnce(key, () => this.make(source, family, kind, box, sourceType, key));
      return {
        rendition,
        growing: null,
        mimeType: RENDITION_MIME[family][kind],
        contentVersion,
        modifiedAt: Math.floor(source.stat.mtimeMs),
        originalByteCount: source.stat.size,
      };
    } finally {
      if (!handedOver) fs.closeSync(source.fd);
    }
  }

  /**
   * A streamed MP4 made in a transcode slot (FILE-16): readers read its part file as it grows;
   * when it is done and the original is unchanged it moves into the cache, else every read fails
   * with the transcode's error and the part file goes. The job owns `source` from here on.
   */
  private startGrowing(
    key: string,
    source: KeptFile,
    box: RenditionSize,
    audioOnly: boolean,
    sourceType: string,
  ): GrowingRendition {
    const part = this.cache.partPath(key);
    const growing = new GrowingRendition(part, () => assertUnchanged(source));
    this.growing.set(key, growing);
    void this.slots
      .run(async () => {
        const output = fs.openSync(part, 'r+');
        try {
          await this.makeAudioVideo(source, part, 'mp4', box, audioOnly, sourceType, output);
        } finally {
          fs.closeSync(output);
        }
        assertUnchanged(source);
        growing.finish(this.cache.add(key, part, 'mp4'));
      })
      .catch((error: unknown) => {
        fs.rmSync(part, { force: true });
        growing.fail(error instanceof Error ? error : new Error(String(error)));
      })
      .finally(() => {
        this.growing.delete(key);
        fs.closeSync(source.fd);
      });
    return growing;
  }

  /** Waits (bounded) until a growing rendition has a byte at `offset` or is done (FILE-16); a kept one is ready at once. */
  async waitForBytes(ready: ReadyRendition, offset: number): Promise<void> {
    await ready.growing?.waitPast(offset, this.limits.growingWaitMs);
  }

  /**
   * Up to 1 MiB of a rendition from `offset` (FILE-10). Of a rendition still being made, the
   * bytes written so far: `complete` false, `totalBytes` null, `size` what is written, and
   * `nextOffset` where the next read starts (never null while it grows, FILE-16).
   */
  readChunk(
    ready: ReadyRendition,
    offset: number,
    allocate: (n: number) => Buffer,
  ): Omit<MediaChunk, 'dataBase64'> & { bytes: Buffer } {
    const growing = ready.growing;
    const kept = ready.rendition ?? growing?.outcome();
    if (kept) return this.readKept(ready, kept, offset, allocate);
    if (!growing) throw new Error('a ready rendition is kept or growing');
    growing.checkSource();
    const written = growing.written();
    if (offset > written)
      throw invalidParams(`Offset ${offset} is past the ${written} bytes made so far.`, { offset, size: written });
    const bytes = allocate(Math.min(MEDIA_CHUNK_BYTES, written - offset));
    const count = readFully(growing.fd, bytes, offset);
    const data = bytes.subarray(0, count);
    const sha256 = crypto.createHash('sha256').update(data).digest('hex');
    const { contentVersion, modifiedAt, mimeType, originalByteCount } = ready;
    return {
      offset,
      nextOffset: offset + count,
      bytes: data,
      byteCount: count,
      size: written,
      sha256,
      contentVersion,
      modifiedAt,
      mimeType,
      originalByteCount,
      complete: false,
      totalBytes: null,
    };
  }

  /** Up to 1 MiB of a prepared rendition from `offset`, read into `allocate(n)` (FILE-10). */
  private readKept(
    ready: ReadyRendition,
    kept: CachedRendition,
    offset: number,
    allocate: (n: number) => Buffer,
  ): Omit<MediaChunk, 'dataBase64'> & { bytes: Buffer } {
    let fd: number;
    try {
      fd = fs.openSync(kept.file, 'r');
    } catch {
      // Pushed out of the cache by another between `prepare` and this read: asking again makes it anew.
      throw new RuntimeError('unavailable', 'The rendition was just removed to make room. Open the file again.', {
        reason: 'evicted',
      });
    }
    try {
      const chunk = readChunkFromOpenFile(fd, fs.fstatSync(fd), kept.file, offset, allocate, MEDIA_CHUNK_BYTES);
      return {
        ...chunk,
        complete: true,
        totalBytes: chunk.size,
        contentVersion: ready.contentVersion,
        modifiedAt: ready.modifiedAt,
        mimeType: ready.mimeType,
        originalByteCount: ready.originalByteCount,
      };
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Stops transcodes still running (the runtime is stopping). */
  close(): void {
    this.stopping.abort();
  }

  /** One making per key at a time: a second caller waits for the first one's result. */
  private makeOnce(key: string, make: () => Promise<CachedRendition>): Promise<CachedRendition> {
    const running = this.making.get(key);
    if (running) return running;
    const made = this.slots.run(make).finally(() => this.making.delete(key));
    this.making.set(key, made);
    return made;
  }

  private async make(
    source: KeptFile,
    family: Family,
    kind: RenditionKind,
    box: RenditionSize,
    sourceType: string,
    key: string,
  ): Promise<CachedRendition> {
    const part = this.cache.partPath(key);
    try {
      if (family === 'image') await this.makeImage(source, part, kind, box, sourceType);
      else await this.makeAudioVideo(source, part, kind, box, family === 'audio', sourceType);
      assertUnchanged(source);
      return this.cache.add(key, part, kind);
    } finally {
      fs.rmSync(part, { force: true });
    }
  }

  /**
   * An image rendition made in the image program's child process (FILE-10, FILE-11); a HEIC or HEIF
   * photo is first decoded to PNG by heif-convert, within the same slot and time limit.
   */
  private async makeImage(
    source: KeptFile,
    part: string,
    kind: RenditionKind,
    box: RenditionSize,
    sourceType: string,
  ): Promise<void> {
    if (kind !== 'jpeg' && kind !== 'webp') throw invalidParams(`Not an image kind: ${kind}.`);
    const deadline = Date.now() + this.limits.timeoutMs;
    const remaining = () => Math.max(1, deadline - Date.now());
    const decoded = `${part}.png`;
    const heif = sourceType === 'image/heic' || sourceType === 'image/heif';
    try {
      if (heif)
        await decodeHeif(
          {
            inputFd: source.fd,
            output: decoded,
            heifConvert: this.limits.heifConvert,
            timeoutMs: remaining(),
            maxOutputBytes: this.limits.maxRenditionBytes,
          },
          this.stopping.signal,
        );
      // On Linux and macOS /dev/fd/3 opens the inherited descriptor's file again: the child reads exactly the checked file.
      const input = heif ? decoded : '/dev/fd/3';
      const job = { input, output: part, kind, ...box, maxPixels: this.limits.maxImagePixels, timeoutMs: remaining() };
      await runImageChild(job, heif ? undefined : source.fd, this.stopping.signal);
    } catch (error) {
      if (!(error instanceof TranscodeError)) throw error;
      this.logFailure(error, sourceType);
      throw error.failure === 'missing_program' && heif
        ? heifConvertMissing(path.basename(this.limits.heifConvert))
        : refusalOf(error.failure, this.limits, sourceType);
    } finally {
      fs.rmSync(decoded, { force: true });
    }
    if (fs.statSync(part).size > this.limits.maxRenditionBytes) throw renditionTooLarge(this.limits.maxRenditionBytes);
  }

  private logFailure(error: TranscodeError, sourceType: string): void {
    if (error.failure !== 'decode_failed' && error.failure !== 'stopped') return;
    this.log.info('A media child could not make a rendition', {
      mimeType: sourceType,
      failure: error.failure,
      detail: error.detail.trim().split('\n').slice(-3).join(' | '),
    });
  }

  private async makeAudioVideo(
    source: KeptFile,
    part: string,
    kind: RenditionKind,
    box: RenditionSize,
    audioOnly: boolean,
    sourceType: string,
    outputFd?: number,
  ): Promise<void> {
    const job = {
      inputFd: source.fd,
      output: part,
      outputFd,
      kind,
      audioOnly,
      size: box,
      ffmpeg: this.limits.ffmpeg,
      maxOutputBytes: this.limits.maxRenditionBytes,
      timeoutMs: this.limits.timeoutMs,
    };
    try {
      await runFfmpegTranscode(job, this.stopping.signal);
    } catch (error) {
      if (!(error instanceof TranscodeError)) throw error;
      this.logFailure(error, sourceType);
      throw refusalOf(error.failure, this.limits, sourceType);
    }
  }
}

/** FILE-12: the original must be the version the rendition was asked of, start to end. */
function assertUnchanged(source: KeptFile): void {
  const after = fs.fstatSync(source.fd);
  if (after.size !== source.stat.size || after.mtimeMs !== source.stat.mtimeMs) throw sourceChanged();
}

function refusalOf(failure: TranscodeFailure, limits: MediaLimits, sourceType: string): RuntimeError {
  switch (failure) {
    case 'missing_program':
      return ffmpegMissing(path.basename(limits.ffmpeg));
    case 'timeout':
      return transcodeTimedOut(limits.timeoutMs);
    case 'too_large':
      return renditionTooLarge(limits.maxRenditionBytes);
    case 'too_many_pixels':
      return tooManyPixels(limits.maxImagePixels);
    case 'stopped':
      return mediaToolStopped();
    case 'decode_failed':
      return corruptMedia(sourceType);
  }
}
