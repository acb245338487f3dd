import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { importPrivateKey, type StaticKeyPair } from '../../lib/relay/noise';
import { OWNER_ONLY_FILE_MODE } from '../runtime/store/ownerOnly';
import { desktopIdOf } from '../relay/desktopId';

const RELAY_IDENTITY_FILE = 'relay-identity.json';

const Base64urlSchema = z.string().regex(/^[A-Za-z0-9_-]+$/);
const KeyPairSchema = z.object({ publicKey: Base64urlSchema, privateKeyPkcs8: Base64urlSchema });
const RelayIdentityFileSchema = z.object({ v: z.literal(1), ed25519: KeyPairSchema, x25519: KeyPairSchema });
type RelayIdentityFile = z.infer<typeof RelayIdentityFileSchema>;

/** The desktop's relay identity, loaded (RLY-2). */
export interface RelayIdentity {
  desktopId: string;
  /** Ed25519, raw 32 bytes: what the relay checks the registration against. */
  signingPublicKey: Uint8Array;
  /** Signs `registrationMessage(publicUrl, nonce)`. */
  sign(message: string): Uint8Array;
  /** X25519, the Noise static key: its public half goes into the pairing link. */
  noiseKeys: StaticKeyPair;
}

const toBase64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

function newKeyPair(type: 'ed25519' | 'x25519'): z.infer<typeof KeyPairSchema> {
  const { publicKey, privateKey } = crypto.generateKeyPairSync(type as 'ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  if (!jwk.x) throw new Error(`${type} public key without x`);
  return { publicKey: jwk.x, privateKeyPkcs8: toBase64url(privateKey.export({ format: 'der', type: 'pkcs8' })) };
}

function readOrCreate(dataDir: string): RelayIdentityFile {
  const file = path.join(dataDir, RELAY_IDENTITY_FILE);
  if (fs.existsSync(file)) return RelayIdentityFileSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  const identity: RelayIdentityFile = { v: 1, ed25519: newKeyPair('ed25519'), x25519: newKeyPair('x25519') };
  // `wx`, like the VAPID keys: a new identity would orphan every device paired through the relay.
  fs.writeFileSync(file, JSON.stringify(identity), { mode: OWNER_ONLY_FILE_MODE, flag: 'wx' });
  return identity;
}

/**
 * `relay-identity.json` in the data folder (owner-only, made on first use): an Ed25519 pair that
 * proves the desktop id to relay nodes, and an X25519 pair that is the desktop's Noise static key
 * (RLY-2). The X25519 private key is held as a non-extractable WebCrypto key once loaded.
 */
export async function loadOrCreateRelayIdentity(dataDir: string): Promise<RelayIdentity> {
  const stored = readOrCreate(dataDir);
  const signingPublicKey = Buffer.from(stored.ed25519.publicKey, 'base64url');
  const signingKey = crypto.createPrivateKey({ key: Buffer.from(stored.ed25519.privateKeyPkcs8, 'base64url'), format: 'der', type: 'pkcs8' });
  const noiseKeys = await importPrivateKey(Buffer.from(stored.x25519.privateKeyPkcs8, 'base64url'), Buffer.from(stored.x25519.publicKey, 'base64url'));
  return {
    desktopId: desktopIdOf(signingPublicKey),
    signingPublicKey,
    sign: (message) => crypto.sign(null, Buffer.from(message, 'utf8'), signingKey),
    noiseKeys,
  };
}
