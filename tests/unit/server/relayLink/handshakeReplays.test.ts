import { describe, expect, it } from 'vitest';
import { NoiseError, generateKeyPair, NoiseIKInitiator } from '../../../../lib/relay/noise';
import type { DeviceAuth, Identity } from '../../../../server/auth/tokens';
import { answerHandshake, ReplayedHandshakeError } from '../../../../server/relayLink/channelHandshake';
import { HandshakeReplays } from '../../../../server/relayLink/handshakeReplays';
import { channelPrologue } from '../../../../lib/relay/relayWire';

const DESKTOP_ID = 'a'.repeat(32);

describe('RLY-2 a replayed channel handshake', () => {
  it('RLY-2 a copy of message 1 is refused before its hello is looked at; a new handshake of the same device is answered', async () => {
    const desktopKeys = await generateKeyPair();
    const deviceKeys = await generateKeyPair();
    let looked = 0;
    const identity: Identity = { deviceId: 'device-1' } as Identity;
    const auth = {
      authenticateKey: () => {
        looked++;
        return identity;
      },
      redeemForKey: () => {
        looked++;
        return null;
      },
      keyRefusalReason: () => 'unknown',
    } as unknown as DeviceAuth;
    const replays = new HandshakeReplays();
    const message1 = async () =>
      new NoiseIKInitiator({ prologue: channelPrologue(DESKTOP_ID), staticKeys: deviceKeys, remoteStaticKey: desktopKeys.publicKey }).writeMessage1(new TextEncoder().encode('{"v":1}'));

    const first = await message1();
    const answer = await answerHandshake(first, DESKTOP_ID, desktopKeys, auth, replays);
    expect(answer.identity).toBe(identity);
    expect(looked).toBe(1);
    await expect(answerHandshake(Uint8Array.from(first), DESKTOP_ID, desktopKeys, auth, replays)).rejects.toBeInstanceOf(ReplayedHandshakeError);
    expect(looked).toBe(1);
    // The device's next handshake has a fresh ephemeral key.
    expect((await answerHandshake(await message1(), DESKTOP_ID, desktopKeys, auth, replays)).identity).toBe(identity);
    expect(looked).toBe(2);
    // A message 1 that does not decrypt is refused as such, and records nothing.
    const junk = Uint8Array.from(first);
    junk[40] = junk[40]! ^ 1;
    const error = await answerHandshake(junk, DESKTOP_ID, desktopKeys, auth, new HandshakeReplays()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoiseError);
    expect(error).not.toBeInstanceOf(ReplayedHandshakeError);
  });

  it('RLY-2 the record is bounded: past its size the oldest keys go first', () => {
    const replays = new HandshakeReplays(3);
    const key = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? n : 7));
    expect([1, 2, 3].map((n) => replays.firstUse(key(n)))).toEqual([true, true, true]);
    expect(replays.firstUse(key(2))).toBe(false);
    expect(replays.firstUse(key(4))).toBe(true);
    // 1 was the oldest: forgotten, so it counts as new again; 3 and 4 are still known.
    expect(replays.firstUse(key(1))).toBe(true);
    expect(replays.firstUse(key(3))).toBe(false);
    expect(replays.firstUse(key(4))).toBe(false);
  });
});
