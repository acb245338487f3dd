import { describe, expect, it } from 'vitest';
import { base64url, ChannelCipher, FRAME_KIND, fromBase64url } from '../../../lib/relay/channelCipher';
import { generateKeyPair, NoiseIKInitiator, NoiseIKResponder } from '../../../lib/relay/noise';

async function channelPair(): Promise<{ device: ChannelCipher; desktop: ChannelCipher }> {
  const desktopKeys = await generateKeyPair();
  const prologue = new TextEncoder().encode('test');
  const initiator = new NoiseIKInitiator({ prologue, staticKeys: await generateKeyPair(), remoteStaticKey: desktopKeys.publicKey });
  const responder = new NoiseIKResponder({ prologue, staticKeys: desktopKeys });
  await responder.readMessage1(await initiator.writeMessage1(new Uint8Array(0)));
  const { message, transport } = await responder.writeMessage2(new Uint8Array(0));
  const device = new ChannelCipher((await initiator.readMessage2(message)).transport);
  return { device, desktop: new ChannelCipher(transport) };
}

const text = (s: string) => new TextEncoder().encode(s);
const read = (frame: { data: Uint8Array } | null) => (frame ? new TextDecoder().decode(frame.data) : null);

describe('channel transport frames (RLY-2, RLY-3)', () => {
  it('carries text and binary frames both ways, in order, and hides their kind', async () => {
    const { device, desktop } = await channelPair();
    const frames = await Promise.all([device.seal(FRAME_KIND.text, text('{"a":1}')), device.seal(FRAME_KIND.binary, Uint8Array.of(0, 255, 7))]);
    const opened = await Promise.all(frames.map((f) => desktop.open(f)));
    expect(opened.map((f) => f?.kind)).toEqual([FRAME_KIND.text, FRAME_KIND.binary]);
    expect(read(opened[0] ?? null)).toBe('{"a":1}');
    expect([...(opened[1]?.data ?? [])]).toEqual([0, 255, 7]);
    const back = await desktop.open(await device.seal(FRAME_KIND.text, text('x')));
    expect(read(back)).toBe('x');
    expect(read(await device.open(await desktop.seal(FRAME_KIND.text, text('answer'))))).toBe('answer');
    // The ciphertext of a text and a binary frame of one length has one length: the kind byte is inside.
    expect((await device.seal(FRAME_KIND.text, text('abc'))).length).toBe((await device.seal(FRAME_KIND.binary, text('abc'))).length);
  });

  it('refuses replayed, reordered, forged and truncated frames without breaking the channel', async () => {
    const { device, desktop } = await channelPair();
    const first = await device.seal(FRAME_KIND.text, text('one'));
    const second = await device.seal(FRAME_KIND.text, text('two'));
    const third = await device.seal(FRAME_KIND.text, text('three'));
    expect(read(await desktop.open(second))).toBe('two');
    expect(await desktop.open(first)).toBeNull(); // older than the last accepted: reordered or replayed
    expect(await desktop.open(second)).toBeNull(); // replayed
    const forged = third.slice();
    forged[forged.length - 1] = (forged[forged.length - 1] ?? 0) ^ 0x80;
    expect(await desktop.open(forged)).toBeNull();
    const renumbered = third.slice();
    renumbered[7] = 200; // a nonce the sender never used: its tag cannot match
    expect(await desktop.open(renumbered)).toBeNull();
    expect(await desktop.open(third.subarray(0, 20))).toBeNull();
    expect(read(await desktop.open(third))).toBe('three');
    expect(desktop.rejected).toBe(5);
    // A frame from another channel (other keys) is refused too.
    const other = await channelPair();
    expect(await desktop.open(await other.device.seal(FRAME_KIND.text, text('elsewhere')))).toBeNull();
    expect(read(await desktop.open(await device.seal(FRAME_KIND.text, text('four'))))).toBe('four');
  });

  it('seals a 32 MiB frame', async () => {
    const { device, desktop } = await channelPair();
    const big = new Uint8Array(32 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big[i] = i & 0xff;
    const opened = await desktop.open(await device.seal(FRAME_KIND.binary, big));
    expect(opened?.data.length).toBe(big.length);
    expect(Buffer.from(opened?.data ?? []).equals(Buffer.from(big))).toBe(true);
  });

  it('encodes base64url without padding and refuses other alphabets', () => {
    const bytes = Uint8Array.from({ length: 70 }, (_, i) => (i * 37) & 0xff);
    expect(base64url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
    expect([...fromBase64url(base64url(bytes))]).toEqual([...bytes]);
    expect(() => fromBase64url('a+b/')).toThrow('Not base64url');
  });
});
