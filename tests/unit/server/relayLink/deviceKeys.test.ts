import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeviceAuth } from '../../../../server/auth/tokens';
import { parseCli } from '../../../../server/cli';
import { MIGRATIONS_DIR } from '../../../../server/runtime/paths';
import { openDatabase, type Db } from '../../../../server/runtime/store/database';
import { makeTempDir } from '../../../fixtures/tempDir';

describe('RLY-2 devices whose credential is a key', () => {
  let dir: string;
  let db: Db;
  let auth: DeviceAuth;
  beforeEach(() => {
    dir = makeTempDir();
    db = openDatabase(path.join(dir, 'hbcode.db'), MIGRATIONS_DIR);
    auth = new DeviceAuth(db, undefined, { guesses: 2, windowMs: 60_000 });
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('RLY-2 a code pairs a key once; the key then authenticates; a revoked key is refused in the token words', () => {
    const key = crypto.randomBytes(32);
    const { code } = auth.createPairingCode();
    const paired = auth.redeemForKey(code, 'Phone', key);
    expect(paired).not.toBeNull();
    expect(auth.authenticateKey(key)).toEqual({ deviceId: paired!.deviceId });
    // Paired already: the same key with a used code is still that device (a lost welcome).
    expect(auth.redeemForKey(code, 'Phone', key)).toEqual(paired);
    expect(auth.redeemForKey(code, 'Other', crypto.randomBytes(32))).toBeNull();
    expect(auth.authenticateKey(crypto.randomBytes(32))).toBeNull();
    expect(auth.devices(null).map((d) => d.name)).toEqual(['Phone']);
    auth.revoke(paired!.deviceId);
    expect(auth.authenticateKey(key)).toBeNull();
    expect(auth.keyRefusalReason(key)).toMatch(/token was revoked/);
    // Pairing the revoked key again with a new code makes a new device.
    const again = auth.redeemForKey(auth.createPairingCode().code, 'Phone', key);
    expect(again?.deviceId).not.toBe(paired!.deviceId);
    expect(auth.authenticateKey(key)).toEqual({ deviceId: again!.deviceId });
  });

  it('RLY-2 SEC-9 wrong codes for keys count against the same guess limit as token pairing', () => {
    expect(auth.redeemForKey('AAAAA-AAAAA', 'x', crypto.randomBytes(32))).toBeNull();
    expect(auth.redeem('AAAAA-AAAAB', 'x')).toBeNull();
    const { code } = auth.createPairingCode();
    expect(() => auth.redeemForKey(code, 'x', crypto.randomBytes(32))).toThrow(/Too many pairing attempts/);
    expect(() => auth.redeem(code, 'x')).toThrow(/Too many pairing attempts/);
  });

  it('RLY-2 --relay takes an https origin, or http on a .localhost name', () => {
    expect(parseCli(['--relay', 'https://relay.example.org'], {}, os.tmpdir()).relay?.origin).toBe('https://relay.example.org');
    expect(parseCli(['--relay', 'http://relay.localhost:9000'], {}, os.tmpdir()).relay?.origin).toBe('http://relay.localhost:9000');
    expect(parseCli([], {}, os.tmpdir()).relay).toBeNull();
    expect(() => parseCli(['--relay', 'http://relay.example.org'], {}, os.tmpdir())).toThrow(/--relay must be an https/);
    expect(() => parseCli(['--relay', 'https://relay.example.org/x'], {}, os.tmpdir())).toThrow(/origin only/);
  });
});
