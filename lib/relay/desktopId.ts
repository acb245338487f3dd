import crypto from 'node:crypto';

const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** RFC 4648 base32, lowercase, without padding. */
function base32Lower(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * A desktop's relay id (RLY-1): lowercase base32 of the first 20 bytes of SHA-256 of its raw
 * Ed25519 public key, so the id itself names the key that must sign the registration.
 */
export function desktopIdOf(ed25519PublicKeyRaw: Uint8Array): string {
  return base32Lower(crypto.createHash('sha256').update(ed25519PublicKeyRaw).digest().subarray(0, 20));
}
