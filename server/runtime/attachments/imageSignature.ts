import type { NativeImageType } from '../../../lib/protocol/attachments';

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0) =>
  signature.every((byte, i) => bytes[at + i] === byte);

/** The leading bytes every file of each image type starts with. */
const SIGNATURES: Record<NativeImageType, (bytes: Uint8Array) => boolean> = {
  'image/png': (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': (b) => startsWith(b, [0xff, 0xd8, 0xff]),
  'image/gif': (b) => startsWith(b, [0x47, 0x49, 0x46, 0x38]) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61,
  'image/webp': (b) => startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b, [0x57, 0x45, 0x42, 0x50], 8),
};

/**
 * ATT-2: an attachment sent as an image reaches the agent as an image, so it must really be one:
 * its first bytes must carry the type's signature (a renamed text file is refused).
 */
export function hasImageSignature(mimeType: NativeImageType, firstBytes: Uint8Array): boolean {
  return SIGNATURES[mimeType](firstBytes);
}
