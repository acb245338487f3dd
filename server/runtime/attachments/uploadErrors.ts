import {
  ATTACHMENT_CHUNK_BYTES,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENT_CHUNKS,
  type UploadRefusal,
} from '../../../lib/protocol/attachments';
import type { ErrorCode } from '../../../lib/protocol/errors';
import { RuntimeError } from '../errors';

const bytes = (n: number) => `${n.toLocaleString('en-US')} bytes`;
const refuse = (code: ErrorCode, reason: UploadRefusal, message: string, data: Record<string, unknown> = {}) =>
  new RuntimeError(code, message, { reason, ...data });

const quotaRefusal = (
  reason: 'device_quota' | 'total_quota',
  whose: string,
  askedBytes: number,
  usedBytes: number,
  limitBytes: number,
) =>
  refuse(
    'storage',
    reason,
    `${whose} attachments would pass their quota: ${bytes(usedBytes)} kept of ${bytes(limitBytes)}, ${bytes(askedBytes)} asked. Delete sessions with attachments you no longer need.`,
    { askedBytes, usedBytes, limitBytes },
  );

/** The refusals of the attachment methods (ATT-1, ATT-3), each with `data.reason` (docs/protocol.md). */
export const uploadErrors = {
  tooLarge: (byteLength: number) =>
    refuse(
      'too_large',
      'too_large',
      `This file is ${byteLength} bytes; an attachment may be at most ${MAX_ATTACHMENT_BYTES} bytes (${MAX_ATTACHMENT_CHUNKS} chunks of 1 MiB).`,
      {
        limit: MAX_ATTACHMENT_BYTES,
      },
    ),
  digestMismatch: () =>
    refuse(
      'invalid_params',
      'digest_mismatch',
      "This chunk's SHA-256 does not match its bytes; nothing of it was stored. Send it again.",
    ),
  fileDigestMismatch: () =>
    refuse(
      'invalid_params',
      'digest_mismatch',
      "The whole file's SHA-256 does not match the one the upload began with; nothing was kept. Upload it again.",
    ),
  outOfOrder: (offset: number, confirmedOffset: number) =>
    refuse('conflict', 'out_of_order', `This upload continues at byte ${confirmedOffset}, not ${offset}.`, {
      confirmedOffset,
    }),
  chunkSize: (offset: number, expected: number, got: number) =>
    refuse(
      'invalid_params',
      'chunk_size',
      `The chunk at byte ${offset} must be ${expected} bytes (chunks are ${ATTACHMENT_CHUNK_BYTES} bytes, the last one the rest), not ${got}.`,
      {
        expected,
      },
    ),
  otherSession: () => refuse('conflict', 'other_session', 'This upload belongs to another session.'),
  notAnImage: (mimeType: string) =>
    refuse(
      'invalid_params',
      'not_an_image',
      `This file was sent as ${mimeType} but its bytes are not such an image. Send it as a file instead.`,
    ),
  incomplete: (name: string, confirmedOffset: number, byteLength: number) =>
    refuse(
      'invalid_params',
      'incomplete',
      `"${name}" is not fully uploaded yet (${confirmedOffset} of ${byteLength} bytes).`,
      { confirmedOffset, byteLength },
    ),
  deviceQuota: (askedBytes: number, usedBytes: number, limitBytes: number) =>
    quotaRefusal('device_quota', "This device's", askedBytes, usedBytes, limitBytes),
  totalQuota: (askedBytes: number, usedBytes: number, limitBytes: number) =>
    quotaRefusal('total_quota', "The desktop's", askedBytes, usedBytes, limitBytes),
  diskSpace: (askedBytes: number, freeBytes: number, data: { headroomBytes: number; promisedBytes: number }) =>
    refuse(
      'storage',
      'disk_space',
      `Not enough space on the desktop: ${bytes(freeBytes)} free, ${bytes(askedBytes)} asked.`,
      { askedBytes, freeBytes, ...data },
    ),
  noSuchUpload: (uploadId: string) => new RuntimeError('not_found', 'No such upload.', { uploadId }),
};
