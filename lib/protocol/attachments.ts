import { z } from 'zod';

/** ATT-1: an attachment travels in chunks of exactly this size (the last one may be shorter). */
export const ATTACHMENT_CHUNK_BYTES = 1024 * 1024;
/** ATT-1: at most this many chunks per file, so a file is at most 2 GiB. */
export const MAX_ATTACHMENT_CHUNKS = 2048;
export const MAX_ATTACHMENT_BYTES = ATTACHMENT_CHUNK_BYTES * MAX_ATTACHMENT_CHUNKS;
/** Attachments one message may carry. */
export const MAX_MESSAGE_ATTACHMENTS = 16;

/**
 * Image types the agents take natively (ATT-2): each is checked by its magic bytes when sent as
 * an image. Other types (also other `image/*`) travel as files: the agent gets the stored path.
 */
export const NATIVE_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type NativeImageType = (typeof NATIVE_IMAGE_TYPES)[number];

export function isNativeImageType(mimeType: string): mimeType is NativeImageType {
  return (NATIVE_IMAGE_TYPES as readonly string[]).includes(mimeType);
}

export const Sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 is 64 lowercase hex digits');
export const UploadIdSchema = z.string().regex(/^u[0-9a-f]{32}$/, 'an upload id is "u" and 32 hex digits');
/** A file name as the user's device gave it; only for showing and for the agent. */
export const AttachmentNameSchema = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (name) => !name.includes('/') && !name.includes('\\') && !name.includes('\u0000'),
    'a file name has no slash, backslash or NUL',
  );
export const MimeTypeSchema = z
  .string()
  .max(127)
  .regex(/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/, 'a MIME type such as image/png');

/** One attachment of a message row (ATT-1): only complete, verified uploads are ever listed. */
export const MessageAttachmentSchema = z.object({
  uploadId: z.string(),
  name: z.string(),
  mimeType: z.string(),
  byteLength: z.number().int().nonnegative(),
  sha256: z.string(),
});
export type MessageAttachment = z.infer<typeof MessageAttachmentSchema>;

export const UploadStatusSchema = z.object({
  uploadId: z.string(),
  /** Bytes stored, synced and confirmed: the next chunk starts here (ATT-1). */
  confirmedOffset: z.number().int().nonnegative(),
  byteLength: z.number().int().nonnegative(),
  complete: z.boolean(),
});
export type UploadStatus = z.infer<typeof UploadStatusSchema>;

/** Why an upload call was refused, in `data.reason` beside `data.code` (docs/protocol.md). */
export const UPLOAD_REFUSALS = [
  'too_large',
  'digest_mismatch',
  'out_of_order',
  'chunk_size',
  'other_session',
  'not_an_image',
  'incomplete',
  // ATT-3, with code `storage`: the device's quota, the desktop's quota, the free disk.
  'device_quota',
  'total_quota',
  'disk_space',
] as const;
export type UploadRefusal = (typeof UPLOAD_REFUSALS)[number];
