import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registrationMessage } from '../../../../lib/relay/relayWire';
import { desktopIdOf } from '../../../../lib/relay/desktopId';
import { relayReconnectDelay } from '../../../../server/relayLink/linkBackoff';
import { loadOrCreateRelayIdentity } from '../../../../server/relayLink/relayIdentity';
import { makeTempDir } from '../../../fixtures/tempDir';

describe('RLY-1 the desktop relay identity', () => {
  it('RLY-1 the desktop id is lowercase base32 of the first 20 bytes of SHA-256 of the key', () => {
    // Reference values from Python's base64.b32encode(hashlib.sha256(key).digest()[:20]).lower().
    expect(desktopIdOf(new Uint8Array(32))).toBe('mzuhvlpymk6xo3epygfy5h4oeaejofef');
    expect(desktopIdOf(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe('mmg42klgyqzwneiskrelxms3j72bfje4');
  });

  it('RLY-1 is made once, owner-only, and loads the same keys again; its signature verifies; a file from before TLS passthrough still loads', async () => {
    const dir = makeTempDir();
    const first = await loadOrCreateRelayIdentity(dir);
    const file = path.join(dir, 'relay-identity.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const again = await loadOrCreateRelayIdentity(dir);
    expect(again.desktopId).toBe(first.desktopId);
    expect(first.desktopId).toBe(desktopIdOf(first.signingPublicKey));
    expect(Object.keys(JSON.parse(fs.readFileSync(file, 'utf8')) as object).sort()).toEqual(['ed25519', 'v']);
    const message = registrationMessage('https://relay.example.org', 'n'.repeat(43));
    const publicKey = crypto.createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(first.signingPublicKey).toString('base64url') },
      format: 'jwk',
    });
    expect(crypto.verify(null, Buffer.from(message), publicKey, again.sign(message))).toBe(true);
    // The retired relay channel's X25519 pair may still be in an older file: kept there, unused, the same desktop id.
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ ...stored, x25519: { publicKey: 'AAAA', privateKeyPkcs8: 'AAAA' } }));
    expect((await loadOrCreateRelayIdentity(dir)).desktopId).toBe(first.desktopId);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('RLY-4 reconnect delays grow to a cap, with jitter', () => {
    expect(relayReconnectDelay(0, () => 0.5)).toBe(500);
    expect(relayReconnectDelay(3, () => 0.5)).toBe(4_000);
    expect(relayReconnectDelay(50, () => 1)).toBe(37_500);
    expect(relayReconnectDelay(50, () => 0)).toBe(22_500);
  });
});
