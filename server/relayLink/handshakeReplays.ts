/**
 * The initiator ephemeral keys of the channel handshakes this runtime has accepted (RLY-2). Noise
 * IK's first message can be replayed: the desktop would answer it with a fresh key, and although
 * the relay could neither read that channel nor send on it, each replay would be a connection
 * the runtime holds as the device's, and a replayed pairing hello would spend a wrong-code guess.
 * A real device makes a new ephemeral key for every handshake, so a key seen before is a replay.
 *
 * NOTE: held in memory, so a handshake recorded before the runtime last started can be replayed
 * once more (to the same dead end). The oldest keys go first past MAX_KEYS.
 */
const MAX_KEYS = 50_000;

export class HandshakeReplays {
  private readonly seen = new Set<string>();

  constructor(private readonly maxKeys = MAX_KEYS) {}

  /** True the first time `ephemeralKey` is offered; false for a replay. Records it either way. */
  firstUse(ephemeralKey: Uint8Array): boolean {
    const key = Buffer.from(ephemeralKey.buffer, ephemeralKey.byteOffset, ephemeralKey.byteLength).toString('base64');
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if (this.seen.size > this.maxKeys) {
      const oldest = this.seen.values().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    return true;
  }
}
