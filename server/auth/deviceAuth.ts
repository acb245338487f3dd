import crypto from 'node:crypto';
import type { Device } from '../../lib/protocol/rows';
import { RuntimeError } from '../runtime/errors';
import type { Db } from '../runtime/store/database';
import { DEFAULT_PAIRING_GUESS_LIMIT, PairingGuessLimit, type PairingGuessLimitOptions } from './pairingGuessLimit';

/** Pairing codes work once, for this long (SEC-1). */
const PAIRING_CODE_TTL_MS = 10 * 60 * 1000;
/** Crockford's base32 without I, L, O, U: easy to read aloud and to type on a phone. */
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_LENGTH = 10;

const hashSecret = (secret: string) => crypto.createHash('sha256').update(secret, 'utf8').digest();

/** Codes are compared case-insensitively and without the separator people type. */
const normaliseCode = (code: string) =>
  code
    .toUpperCase()
    .replace(/[^0-9A-Z]/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');

function randomCode(): string {
  const bytes = crypto.randomBytes(CODE_LENGTH);
  let code = '';
  for (const b of bytes) code += CODE_ALPHABET[b & 31];
  return code;
}

/** "40 seconds", "2 minutes": how long to wait, as a person reads it. */
function waitInWords(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 90) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

const REVOKED_REASON =
  "This device's token was revoked: it was signed out or removed from the device list. Pair it again with a new code.";

/** A device a pairing code just added, and that code's expiry (which tells the screen showing it that it was used). */
export interface PairedDevice {
  deviceId: string;
  name: string;
  codeExpiresAt: number;
}

export interface Identity {
  /** null for the HBCODE_TOKEN used by scripts and tests. */
  deviceId: string | null;
}

/**
 * Devices, their hashed tokens and single-use pairing codes (RPC-2, SEC-1). Tokens and codes
 * are stored only as SHA-256 digests; a 256-bit random token needs no slow hash.
 */
export class DeviceAuth {
  private readonly stmts;
  private readonly envTokenHash: Buffer | null;
  private readonly guessLimit: PairingGuessLimit;
  private readonly pairedListeners = new Set<(paired: PairedDevice) => void>();

  constructor(
    private readonly db: Db,
    envToken: string | undefined,
    guessLimit: PairingGuessLimitOptions = DEFAULT_PAIRING_GUESS_LIMIT,
    /** What pairing reads as now: codes' expiry and the guess window (SEC-9); tests step a fake one forward. */
    private readonly clock: () => number = Date.now,
  ) {
    this.envTokenHash = envToken ? hashSecret(envToken) : null;
    this.guessLimit = new PairingGuessLimit(guessLimit);
    this.stmts = {
      insertCode: db.prepare('INSERT INTO pairing_codes (code_hash, expires_at) VALUES (?, ?)'),
      redeemCode: db.prepare<[number, Buffer, number], { expires_at: number }>(
        'UPDATE pairing_codes SET redeemed_at = ? WHERE code_hash = ? AND redeemed_at IS NULL AND expires_at > ? RETURNING expires_at',
      ),
      purgeCodes: db.prepare('DELETE FROM pairing_codes WHERE expires_at <= ? OR redeemed_at IS NOT NULL'),
      insertDevice: db.prepare('INSERT INTO devices (id, name, token_hash, created_at) VALUES (?, ?, ?, ?)'),
      deviceByToken: db.prepare<[Buffer], { id: string }>(
        'SELECT id FROM devices WHERE token_hash = ? AND revoked_at IS NULL',
      ),
      touchDevice: db.prepare('UPDATE devices SET last_seen_at = ? WHERE id = ?'),
      devices: db.prepare<[], { id: string; name: string; created_at: number; last_seen_at: number | null }>(
        'SELECT id, name, created_at, last_seen_at FROM devices WHERE revoked_at IS NULL ORDER BY created_at',
      ),
      revoke: db.prepare('UPDATE devices SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      deviceActive: db.prepare<[string], { id: string }>('SELECT id FROM devices WHERE id = ? AND revoked_at IS NULL'),
      revokedByToken: db.prepare<[Buffer], { id: string }>(
        'SELECT id FROM devices WHERE token_hash = ? AND revoked_at IS NOT NULL',
      ),
      rename: db.prepare('UPDATE devices SET name = ? WHERE id = ? AND revoked_at IS NULL'),
    };
  }

  createPairingCode(now = this.clock()): { code: string; expiresAt: number } {
    this.stmts.purgeCodes.run(now);
    const code = randomCode();
    const expiresAt = now + PAIRING_CODE_TTL_MS;
    this.stmts.insertCode.run(hashSecret(code), expiresAt);
    return { code: `${code.slice(0, 5)}-${code.slice(5)}`, expiresAt };
  }

  /**
   * Redeems a code once and issues the device's token. Returns null for a wrong, used or expired
   * code; throws `rate_limited` without looking at the code while too many were wrong (SEC-9).
   */
  redeem(code: string, deviceName: string, now = this.clock()): { token: string; deviceId: string } | null {
    return this.useCode(code, deviceName, now, () => {
      const token = crypto.randomBytes(32).toString('base64url');
      const deviceId = crypto.randomUUID();
      this.stmts.insertDevice.run(deviceId, deviceName, hashSecret(token), now);
      return { token, deviceId };
    });
  }

  /** Called with each device a pairing code adds (DEV-1: the Devices screens of the others update). */
  onPaired(listener: (paired: PairedDevice) => void): () => void {
    this.pairedListeners.add(listener);
    return () => this.pairedListeners.delete(listener);
  }

  /** Uses the code up and runs `create` in one transaction; null for a wrong code, which counts against the guess limit (SEC-9). */
  private useCode<T extends { deviceId: string }>(
    code: string,
    deviceName: string,
    now: number,
    create: () => T,
  ): T | null {
    const retryAfterMs = this.guessLimit.retryAfterMs(now);
    if (retryAfterMs > 0)
      throw new RuntimeError(
        'rate_limited',
        `Too many pairing attempts on this computer. Try again in ${waitInWords(retryAfterMs)}.`,
        { retryAfterMs },
      );
    const used = this.db.transaction(() => {
      const row = this.stmts.redeemCode.get(now, hashSecret(normaliseCode(code)), now);
      return row ? { created: create(), codeExpiresAt: row.expires_at } : null;
    })();
    if (!used) {
      this.guessLimit.recordWrongGuess(now);
      return null;
    }
    for (const listener of this.pairedListeners)
      listener({ deviceId: used.created.deviceId, name: deviceName, codeExpiresAt: used.codeExpiresAt });
    return used.created;
  }

  authenticate(token: string): Identity | null {
    const hash = hashSecret(token);
    if (this.envTokenHash && crypto.timingSafeEqual(hash, this.envTokenHash)) return { deviceId: null };
    const device = this.stmts.deviceByToken.get(hash);
    if (!device) return null;
    this.stmts.touchDevice.run(Date.now(), device.id);
    return { deviceId: device.id };
  }

  /**
   * Why `authenticate` refused a token, in words the pair screen shows (DEV-1): a device revoked
   * or signed out is told so, a token this runtime never issued (a reset data folder) too.
   */
  refusalReason(token: string): string {
    if (this.stmts.revokedByToken.get(hashSecret(token))) return REVOKED_REASON;
    return "This runtime does not know this device's token (its data folder may be new). Pair it again with a new code.";
  }

  isActive(identity: Identity): boolean {
    return identity.deviceId === null
      ? this.envTokenHash !== null
      : this.stmts.deviceActive.get(identity.deviceId) !== undefined;
  }

  devices(currentDeviceId: string | null): Device[] {
    return this.stmts.devices.all().map((d) => ({
      id: d.id,
      name: d.name,
      createdAt: d.created_at,
      lastSeenAt: d.last_seen_at,
      current: d.id === currentDeviceId,
    }));
  }

  rename(deviceId: string, name: string): boolean {
    return this.stmts.rename.run(name, deviceId).changes === 1;
  }

  revoke(deviceId: string): boolean {
    return this.stmts.revoke.run(Date.now(), deviceId).changes === 1;
  }
}
