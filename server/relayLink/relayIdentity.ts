import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { OWNER_ONLY_FILE_MODE } from '../runtime/store/ownerOnly';
import { desktopIdOf } from '../../lib/relay/desktopId';

const RELAY_IDENTITY_FILE = 'relay-identity.json';

const Base64urlSchema = z.string().regex(/^[A-Za-z0-9_-]+$/);
const KeyPairSchema = z.object({ publicKey: Base64urlSchema, privateKeyPkcs8: Base64urlSchema });
/** `x25519` was the retired relay channel's key (a file made before TLS passthrough still holds it, unused). */
const RelayIdentityFileSchema = z.object({ v: z.literal(1), ed25519: KeyPairSchema, x25519: KeyPairSchema.optional() });
type RelayIdentityFile = z.infer<typeof RelayIdentityFileSchema>;

/** The desktop's relay identity, loaded (RLY-1). */
export interface RelayIdentity {
  desktopId: string;
  /** Ed25519, raw 32 bytes: what the relay checks the registration against. */
  signingPublicKey: Uint8Array;
  /** Signs `registrationMessage(publicUrl, nonce)`. */
  sign(message: string): Uint8Array;
}

const toBase64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

function newKeyPair(): z.infer<typeof KeyPairSchema> {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  if (!jwk.x) throw new Error('ed25519 public key without x');
  return { publicKey: jwk.x, privateKeyPkcs8: toBase64url(privateKey.export({ format: 'der', type: 'pkcs8' })) };
}

function readOrCreate(dataDir: string): RelayIdentityFile {
  const file = path.join(dataDir, RELAY_IDENTITY_FILE);
  if (fs.existsSync(file)) return RelayIdentityFileSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  const identity: RelayIdentityFile = { v: 1, ed25519: newKeyPair() };
  // `wx`, like the VAPID keys: a new identity is a new desktop id, so a new name and certificate (RLY-7).
  fs.writeFileSync(file, JSON.stringify(identity), { mode: OWNER_ONLY_FILE_MODE, flag: 'wx' });
  return identity;
}

/**
 * `relay-identity.json` in the data folder (owner-only, made on first use): an Ed25519 pair that
 * proves the desktop id to relay nodes (RLY-1); the id names the desktop under the relay (RLY-6).
 */
export async function loadOrCreateRelayIdentity(dataDir: string): Promise<RelayIdentity> {
  const stored = readOrCreate(dataDir);
  const signingPublicKey = Buffer.from(stored.ed25519.publicKey, 'base64url');
  const signingKey = crypto.createPrivateKey({
    key: Buffer.from(stored.ed25519.privateKeyPkcs8, 'base64url'),
    format: 'der',
    type: 'pkcs8',
  });
  return {
    desktopId: desktopIdOf(signingPublicKey),
    signingPublicKey,
    sign: (message) => crypto.sign(null, Buffer.from(message, 'utf8'), signingKey),
  };
}
