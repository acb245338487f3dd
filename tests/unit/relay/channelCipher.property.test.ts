import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ChannelCipher, FRAME_KIND, SEAL_OVERHEAD_BYTES, type FrameKind } from '../../../lib/relay/channelCipher';
import type { TransportKeys } from '../../../lib/relay/noise';
import { channelTransports } from '../../fixtures/channelPair';
import { propertyRuns } from '../../fixtures/propertyRuns';

const kind = fc.constantFrom<FrameKind>(FRAME_KIND.text, FRAME_KIND.binary);
const frames = fc.array(fc.record({ kind, data: fc.uint8Array({ maxLength: 2048 }) }), { minLength: 1, maxLength: 6 });

/** One sealed frame changed on the way: a bit flipped, cut short, grown, or replaced by any bytes. */
const tampering: fc.Arbitrary<Tampering> = fc.oneof(
  fc.record({ how: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat(7) }),
  fc.record({ how: fc.constant('cut' as const), keep: fc.nat() }),
  fc.record({ how: fc.constant('grow' as const), extra: fc.uint8Array({ minLength: 1, maxLength: 20 }) }),
  fc.record({ how: fc.constant('replace' as const), bytes: fc.uint8Array({ maxLength: 200 }) }),
);

type Tampering = { how: 'flip'; at: number; bit: number } | { how: 'cut'; keep: number } | { how: 'grow'; extra: Uint8Array } | { how: 'replace'; bytes: Uint8Array };

function tamper(frame: Uint8Array, change: Tampering): Uint8Array {
  switch (change.how) {
    case 'flip': {
      const copy = frame.slice();
      const at = change.at % copy.length;
      copy[at] = copy[at]! ^ (1 << change.bit);
      return copy;
    }
    case 'cut':
      return frame.slice(0, change.keep % frame.length);
    case 'grow':
      return Uint8Array.from([...frame, ...change.extra]);
    case 'replace':
      return change.bytes;
  }
}

describe('RLY-2 RLY-3 channel frames (lib/relay/channelCipher.ts), for any input', () => {
  // One handshake for the file; each case starts fresh ciphers (nonces from 0) on its keys.
  let keys: { desktop: TransportKeys; device: TransportKeys };
  beforeAll(async () => {
    keys = await channelTransports();
  });
  const channelCiphers = async () => ({ device: new ChannelCipher(keys.device), desktop: new ChannelCipher(keys.desktop) });

  it('RLY-3 any frames sealed on one end open on the other, in order, with their kind and bytes', async () => {
    await fc.assert(
      fc.asyncProperty(frames, async (sent) => {
        const { device, desktop } = await channelCiphers();
        const sealed = await Promise.all(sent.map((f) => device.seal(f.kind, f.data)));
        expect(sealed.map((s) => s.length)).toEqual(sent.map((f) => f.data.length + SEAL_OVERHEAD_BYTES));
        const opened = await Promise.all(sealed.map((s) => desktop.open(s)));
        expect(opened.map((o) => o && { kind: o.kind, data: [...o.data] })).toEqual(sent.map((f) => ({ kind: f.kind, data: [...f.data] })));
        expect(desktop.rejected).toBe(0);
      }),
      propertyRuns(40),
    );
  });

  it('RLY-2 a frame changed in any way, or any bytes at all, is refused and counted, never thrown, and the next genuine frame still opens', async () => {
    await fc.assert(
      fc.asyncProperty(kind, fc.uint8Array({ maxLength: 512 }), tampering, async (k, data, change) => {
        const { device, desktop } = await channelCiphers();
        const genuine = await device.seal(k, data);
        const changed = tamper(genuine, change);
        const opened = await desktop.open(changed);
        expect(opened).toBeNull();
        expect(desktop.rejected).toBe(1);
        const next = await desktop.open(genuine);
        expect(next && [...next.data]).toEqual([...data]);
        // And once accepted, the same frame again is a replay.
        expect(await desktop.open(genuine)).toBeNull();
      }),
      propertyRuns(60),
    );
  });

  it('RLY-2 frames opened out of order: only those newer than every frame accepted before open', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(7), { minLength: 1, maxLength: 12 }), async (order) => {
        const { device, desktop } = await channelCiphers();
        const sealed = await Promise.all(Array.from({ length: 8 }, (_, i) => device.seal(FRAME_KIND.binary, Uint8Array.of(i))));
        let newest = -1;
        for (const index of order) {
          const opened = await desktop.open(sealed[index]!);
          if (index > newest) {
            expect(opened && [...opened.data]).toEqual([index]);
            newest = index;
          } else {
            expect(opened).toBeNull();
          }
        }
      }),
      propertyRuns(40),
    );
  });
});
