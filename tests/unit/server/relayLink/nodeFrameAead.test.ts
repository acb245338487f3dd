import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ChannelCipher, FRAME_KIND, webCryptoFrameAead, type FrameAeadFactory } from '../../../../lib/relay/channelCipher';
import { FrameBufferPool } from '../../../../server/relayLink/frameBufferPool';
import { nodeFrameAead } from '../../../../server/relayLink/nodeFrameAead';
import { channelTransports as transports } from '../../../fixtures/channelPair';

const IMPLEMENTATIONS: [string, FrameAeadFactory][] = [
  ['WebCrypto', webCryptoFrameAead],
  ['Node', nodeFrameAead()],
  ['Node, pooled, in place', nodeFrameAead({ pool: new FrameBufferPool(), openInPlace: true })],
];

describe('RLY-3 the channel AES-GCM through Node, against WebCrypto', () => {
  for (const [sealerName, sealer] of IMPLEMENTATIONS) {
    for (const [openerName, opener] of IMPLEMENTATIONS) {
      it(`RLY-3 frames sealed by ${sealerName} open with ${openerName}, in order, byte-exact (small, sliced and odd sizes)`, async () => {
        const { desktop, device } = await transports();
        const from = new ChannelCipher(desktop, sealer);
        const to = new ChannelCipher(device, opener);
        const payloads = [new Uint8Array(0), crypto.randomBytes(1), crypto.randomBytes(16 * 1024), crypto.randomBytes(256 * 1024 + 13), crypto.randomBytes(3 * 1024 * 1024 + 7)];
        const frames = await Promise.all(payloads.map((p, i) => from.seal(i % 2 ? FRAME_KIND.binary : FRAME_KIND.text, p)));
        // Same frame format whoever sealed it: nonce, kind and tag around the bytes.
        expect(frames.map((f) => f.length)).toEqual(payloads.map((p) => p.length + 25));
        for (const [i, frame] of frames.entries()) {
          const opened = await to.open(frame);
          expect(opened?.kind).toBe(i % 2 ? FRAME_KIND.binary : FRAME_KIND.text);
          expect(Buffer.from(opened!.data).equals(Buffer.from(payloads[i]!))).toBe(true);
        }
        expect(to.rejected).toBe(0);
      });
    }
  }

  it('RLY-3 a sealed frame leaves room before it for the link header, and the ciphertext is the same as without it', async () => {
    const { desktop, device } = await transports();
    const data = crypto.randomBytes(100_000);
    const withRoom = await new ChannelCipher(desktop, nodeFrameAead()).seal(FRAME_KIND.binary, data, 11);
    const without = await new ChannelCipher(desktop, webCryptoFrameAead).seal(FRAME_KIND.binary, data);
    expect(withRoom.length).toBe(without.length + 11);
    expect(Buffer.from(withRoom.subarray(11)).equals(Buffer.from(without))).toBe(true);
    const opened = await new ChannelCipher(device, nodeFrameAead()).open(withRoom.subarray(11));
    expect(Buffer.from(opened!.data).equals(data)).toBe(true);
  });

  it('RLY-3 refuses a forged, truncated or replayed frame and goes on, in place too', async () => {
    const { desktop, device } = await transports();
    const from = new ChannelCipher(desktop, nodeFrameAead());
    const to = new ChannelCipher(device, nodeFrameAead({ openInPlace: true }));
    const big = crypto.randomBytes(200_000);
    const first = await from.seal(FRAME_KIND.binary, big);
    const second = await from.seal(FRAME_KIND.text, new TextEncoder().encode('two'));
    const forged = first.slice();
    forged[50_000] = forged[50_000]! ^ 1;
    expect(await to.open(forged)).toBeNull();
    const badTag = first.slice();
    badTag[badTag.length - 1] = badTag[badTag.length - 1]! ^ 1;
    expect(await to.open(badTag)).toBeNull();
    expect(await to.open(first.subarray(0, 20))).toBeNull();
    const kept = first.slice();
    const opened = await to.open(first);
    expect(Buffer.from(opened!.data).equals(big)).toBe(true);
    expect(await to.open(kept)).toBeNull(); // a replay of an accepted frame
    expect(new TextDecoder().decode((await to.open(second))!.data)).toBe('two');
    expect(to.rejected).toBe(4);
  });
});

describe('RLY-3 the frame buffer pool', () => {
  it('RLY-3 a sealed frame the cipher is told was written gives its buffer to the next frame; one not released does not', async () => {
    const { desktop, device } = await transports();
    const pool = new FrameBufferPool();
    const sealer = new ChannelCipher(desktop, nodeFrameAead({ pool }));
    const opener = new ChannelCipher(device, nodeFrameAead());
    const first = await sealer.seal(FRAME_KIND.binary, crypto.randomBytes(200_000), 12);
    const second = await sealer.seal(FRAME_KIND.binary, crypto.randomBytes(200_000), 12);
    expect(second.buffer).not.toBe(first.buffer);
    sealer.release(first);
    const data = crypto.randomBytes(199_000);
    const third = await sealer.seal(FRAME_KIND.binary, data, 12);
    expect(third.buffer).toBe(first.buffer);
    expect(await opener.open(second.subarray(12))).not.toBeNull();
    expect(Buffer.from((await opener.open(third.subarray(12)))!.data).equals(data)).toBe(true);
  });

  it('hands a written frame\'s buffer out again for a frame of about its size, and never pools past its cap', () => {
    const pool = new FrameBufferPool(1024 * 1024);
    const a = pool.take(262_200);
    expect(a.length).toBe(262_200);
    pool.give(a);
    expect(pool.bytesPooled).toBe(a.buffer.byteLength);
    const b = pool.take(262_150);
    expect(b.buffer).toBe(a.buffer);
    expect(pool.bytesPooled).toBe(0);
    // Given twice, pooled once: a buffer is never handed to two frames at a time.
    pool.give(b);
    pool.give(b);
    const c = pool.take(262_150);
    const d = pool.take(262_150);
    expect(c.buffer).toBe(a.buffer);
    expect(d.buffer).not.toBe(a.buffer);
    // The cap: four of these fill 1 MiB; the rest are left to the collector.
    const many = Array.from({ length: 6 }, () => pool.take(262_144));
    for (const buffer of many) pool.give(buffer);
    expect(pool.bytesPooled).toBeLessThanOrEqual(1024 * 1024);
    // Frames over the largest class are not pooled.
    const huge = pool.take(8 * 1024 * 1024);
    pool.give(huge);
    expect(pool.bytesPooled).toBeLessThanOrEqual(1024 * 1024);
    expect(pool.take(8 * 1024 * 1024).buffer).not.toBe(huge.buffer);
  });
});
