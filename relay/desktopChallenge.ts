import crypto from 'node:crypto';
import { registrationMessage, RelayRegisterSchema, type RelayChallenge } from '../lib/relay/relayWire';
import { desktopIdOf } from '../lib/relay/desktopId';
import { parseJsonWith } from '../lib/shared/parseJsonWith';

export function makeChallenge(publicUrl: string): RelayChallenge {
  return { type: 'challenge', nonce: crypto.randomBytes(32).toString('base64url'), publicUrl };
}

/**
 * Checks a desktop's answer to the challenge (RLY-1): a well-formed register message whose
 * desktop id is derived from its Ed25519 key, and a signature by that key over this relay's URL
 * and this link's nonce. The desktop id, or null when anything is wrong.
 */
export function verifyRegistration(text: string, challenge: RelayChallenge): string | null {
  const register = parseJsonWith(RelayRegisterSchema, text);
  if (!register) return null;
  const publicKey = Buffer.from(register.publicKey, 'base64url');
  const signature = Buffer.from(register.signature, 'base64url');
  if (publicKey.length !== 32 || signature.length !== 64) return null;
  if (desktopIdOf(publicKey) !== register.desktopId) return null;
  try {
    const key = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: register.publicKey }, format: 'jwk' });
    const message = Buffer.from(registrationMessage(challenge.publicUrl, challenge.nonce), 'utf8');
    return crypto.verify(null, message, key, signature) ? register.desktopId : null;
  } catch {
    return null;
  }
}
