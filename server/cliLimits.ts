import { FILE_CHUNK_BYTES } from '../lib/protocol/files';
import { DEFAULT_PAIRING_GUESS_LIMIT, type PairingGuessLimitOptions } from './auth/pairingGuessLimit';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../lib/nodeHttp/httpLimits';
import { DEFAULT_UPLOAD_QUOTA, type UploadQuotaOptions } from './runtime/attachments/uploadQuota';
import { DEFAULT_MEDIA_LIMITS, type MediaLimits } from './runtime/media/mediaLimits';
import { stopGracesFromEnv, type StopGraces } from './runtime/process/stopGraces';
import { socketLimitsFromEnv, type SocketLimits } from './rpc/socketLimits';
import { parseIntegerFlag } from '../lib/shared/integerFlag';

/** The limit flags (SEC-9, ATT-3), each with an HBCODE_* environment fallback; tests shorten them to seconds. */
const LIMIT_FLAGS = {
  'headers-timeout-ms': { env: 'HBCODE_HEADERS_TIMEOUT_MS', min: 100 },
  'request-timeout-ms': { env: 'HBCODE_REQUEST_TIMEOUT_MS', min: 100 },
  'max-connections': { env: 'HBCODE_MAX_CONNECTIONS', min: 1 },
  'max-unfinished-head-bytes': { env: 'HBCODE_MAX_UNFINISHED_HEAD_BYTES', min: 65_536 },
  'pairing-guess-limit': { env: 'HBCODE_PAIRING_GUESS_LIMIT', min: 1 },
  'pairing-guess-window-ms': { env: 'HBCODE_PAIRING_GUESS_WINDOW_MS', min: 100 },
  'attachment-device-quota-bytes': { env: 'HBCODE_ATTACHMENT_DEVICE_QUOTA_BYTES', min: 1 },
  'attachment-total-quota-bytes': { env: 'HBCODE_ATTACHMENT_TOTAL_QUOTA_BYTES', min: 1 },
  'attachment-disk-headroom-bytes': { env: 'HBCODE_ATTACHMENT_DISK_HEADROOM_BYTES', min: 0 },
  'upload-expiry-ms': { env: 'HBCODE_UPLOAD_EXPIRY_MS', min: 100 },
  'media-source-max-bytes': { env: 'HBCODE_MEDIA_SOURCE_MAX_BYTES', min: 1 },
  'media-rendition-max-bytes': { env: 'HBCODE_MEDIA_RENDITION_MAX_BYTES', min: 1 },
  'media-timeout-ms': { env: 'HBCODE_MEDIA_TIMEOUT_MS', min: 1 },
  'media-transcodes': { env: 'HBCODE_MEDIA_TRANSCODES', min: 1 },
  'media-cache-bytes': { env: 'HBCODE_MEDIA_CACHE_BYTES', min: 1 },
  'media-growing-wait-ms': { env: 'HBCODE_MEDIA_GROWING_WAIT_MS', min: 1 },
  'media-max-pixels': { env: 'HBCODE_MEDIA_MAX_PIXELS', min: 1 },
} as const;

type LimitFlag = keyof typeof LIMIT_FLAGS;

export const LIMIT_PARSE_OPTIONS = Object.fromEntries(
  Object.keys(LIMIT_FLAGS).map((flag) => [flag, { type: 'string' as const }]),
) as Record<LimitFlag, { type: 'string' }>;

export interface Limits {
  http: HttpLimits;
  pairing: PairingGuessLimitOptions;
  /** ATT-3. */
  attachments: UploadQuotaOptions;
  /** SEC-9 RLY-4: what one socket may make the runtime hold, and for how long (HBCODE_SOCKET_STALL_MS). */
  socket: SocketLimits;
  /** SES-5 TERM-5 ACC-6: how long each stop waits before forcing (HBCODE_*_GRACE_MS). */
  stopGraces: StopGraces;
  /** FILE-11: renditions' sources, outputs, time, parallel transcodes and cache; the ffmpeg program from HBCODE_FFMPEG. */
  media: MediaLimits;
  /**
   * SEC-9 PRV-4: the largest piece one `files.readHtmlPreviewResource` answers (HBCODE_PREVIEW_CHUNK_BYTES,
   * at most FILE_CHUNK_BYTES): tests bound a preview's memory with a small page and small pieces.
   */
  previewChunkBytes: number;
}

function readLimit(
  flag: LimitFlag,
  values: Partial<Record<LimitFlag, string>>,
  env: NodeJS.ProcessEnv,
  fallback: number,
): number {
  const { env: name, min } = LIMIT_FLAGS[flag];
  const [raw, source] =
    values[flag] !== undefined ? [values[flag], `--${flag}`] : env[name] ? [env[name], name] : [undefined, ''];
  if (raw === undefined) return fallback;
  return parseIntegerFlag(raw, source, { min });
}

export function parseLimits(values: Partial<Record<LimitFlag, string>>, env: NodeJS.ProcessEnv): Limits {
  const http: HttpLimits = {
    headersTimeoutMs: readLimit('headers-timeout-ms', values, env, DEFAULT_HTTP_LIMITS.headersTimeoutMs),
    requestTimeoutMs: readLimit('request-timeout-ms', values, env, DEFAULT_HTTP_LIMITS.requestTimeoutMs),
    maxConnections: readLimit('max-connections', values, env, DEFAULT_HTTP_LIMITS.maxConnections),
    maxUnfinishedHeadBytes: readLimit(
      'max-unfinished-head-bytes',
      values,
      env,
      DEFAULT_HTTP_LIMITS.maxUnfinishedHeadBytes,
    ),
  };
  // A request cannot be complete before its head is.
  if (http.requestTimeoutMs < http.headersTimeoutMs) http.requestTimeoutMs = http.headersTimeoutMs;
  const pairing: PairingGuessLimitOptions = {
    guesses: readLimit('pairing-guess-limit', values, env, DEFAULT_PAIRING_GUESS_LIMIT.guesses),
    windowMs: readLimit('pairing-guess-window-ms', values, env, DEFAULT_PAIRING_GUESS_LIMIT.windowMs),
  };
  const attachments: UploadQuotaOptions = {
    perDeviceBytes: readLimit('attachment-device-quota-bytes', values, env, DEFAULT_UPLOAD_QUOTA.perDeviceBytes),
    totalBytes: readLimit('attachment-total-quota-bytes', values, env, DEFAULT_UPLOAD_QUOTA.totalBytes),
    headroomBytes: readLimit('attachment-disk-headroom-bytes', values, env, DEFAULT_UPLOAD_QUOTA.headroomBytes),
    expiryMs: readLimit('upload-expiry-ms', values, env, DEFAULT_UPLOAD_QUOTA.expiryMs),
  };
  const media: MediaLimits = {
    maxSourceBytes: readLimit('media-source-max-bytes', values, env, DEFAULT_MEDIA_LIMITS.maxSourceBytes),
    maxRenditionBytes: readLimit('media-rendition-max-bytes', values, env, DEFAULT_MEDIA_LIMITS.maxRenditionBytes),
    timeoutMs: readLimit('media-timeout-ms', values, env, DEFAULT_MEDIA_LIMITS.timeoutMs),
    concurrentTranscodes: readLimit('media-transcodes', values, env, DEFAULT_MEDIA_LIMITS.concurrentTranscodes),
    cacheBytes: readLimit('media-cache-bytes', values, env, DEFAULT_MEDIA_LIMITS.cacheBytes),
    growingWaitMs: readLimit('media-growing-wait-ms', values, env, DEFAULT_MEDIA_LIMITS.growingWaitMs),
    maxImagePixels: readLimit('media-max-pixels', values, env, DEFAULT_MEDIA_LIMITS.maxImagePixels),
    ffmpeg: env.HBCODE_FFMPEG || DEFAULT_MEDIA_LIMITS.ffmpeg,
    heifConvert: env.HBCODE_HEIF_CONVERT || DEFAULT_MEDIA_LIMITS.heifConvert,
  };
  const previewChunkBytes = env.HBCODE_PREVIEW_CHUNK_BYTES
    ? Math.min(
        parseIntegerFlag(env.HBCODE_PREVIEW_CHUNK_BYTES, 'HBCODE_PREVIEW_CHUNK_BYTES', { min: 1, unit: 'bytes' }),
        FILE_CHUNK_BYTES,
      )
    : FILE_CHUNK_BYTES;
  return {
    http,
    pairing,
    attachments,
    socket: socketLimitsFromEnv(env),
    stopGraces: stopGracesFromEnv(env),
    media,
    previewChunkBytes,
  };
}
