import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONNECTION_ID_PATTERN,
  decodeLinkFrame,
  encodeLinkFrame,
  LINK_FRAME,
  type LinkFrame,
} from '../../../lib/relay/relayWire';
import { propertyRuns } from '../../fixtures/propertyRuns';

const connectionId = fc.stringMatching(CONNECTION_ID_PATTERN);
const linkFrame: fc.Arbitrary<LinkFrame> = fc.oneof(
  connectionId.map((id) => ({ type: LINK_FRAME.stream, connectionId: id })),
  connectionId.map((id) => ({ type: LINK_FRAME.end, connectionId: id })),
  fc.record({
    type: fc.constant(LINK_FRAME.data),
    connectionId,
    payload: fc.uint8Array({ minLength: 1, maxLength: 2048 }),
  }),
  fc.record({
    type: fc.constant(LINK_FRAME.close),
    connectionId,
    code: fc.integer({ min: 0, max: 0xffff }),
    reason: fc.oneof(
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.string({ unit: 'binary', minLength: 110, maxLength: 140 }),
    ),
  }),
  fc.record({ type: fc.constant(LINK_FRAME.ack), connectionId, bytes: fc.integer({ min: 0, max: 0xffffffff }) }),
);

/** Bytes shaped like a link frame (a known or unknown type, an id length that may lie), or anything at all. */
const linkFrameLikeBytes = fc.oneof(
  fc.uint8Array({ maxLength: 600 }),
  fc
    .tuple(
      fc.integer({ min: 0, max: 6 }),
      fc.oneof(
        connectionId.map((id) => new TextEncoder().encode(id)),
        fc.uint8Array({ maxLength: 50 }),
      ),
      fc.integer({ min: -3, max: 3 }),
      fc.uint8Array({ maxLength: 520 }),
    )
    .map(([type, id, lie, payload]) =>
      Uint8Array.from([type, Math.max(0, Math.min(255, id.length + lie)), ...id, ...payload]),
    ),
);

/** What a CLOSE frame's reason becomes on the wire: at most 120 characters, never half of one. */
const sentReason = (reason: string) => Array.from(reason).slice(0, 120).join('');

describe('RLY-4 link frames (lib/relay/relayWire.ts), for any input', () => {
  it('RLY-4 every frame decodes to itself after encoding (a CLOSE reason cut to 120 characters)', () => {
    fc.assert(
      fc.property(linkFrame, (frame) => {
        const expected = frame.type === LINK_FRAME.close ? { ...frame, reason: sentReason(frame.reason) } : frame;
        expect(decodeLinkFrame(encodeLinkFrame(frame))).toEqual(expected);
      }),
      propertyRuns(),
    );
  });

  it('RLY-4 any bytes decode to a frame that encodes back to the same frame, or to an Error that says what is wrong', () => {
    fc.assert(
      fc.property(linkFrameLikeBytes, (bytes) => {
        let frame: LinkFrame;
        try {
          frame = decodeLinkFrame(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
          expect((error as Error).constructor).toBe(Error);
          expect((error as Error).message).toMatch(/link frame|channel frame/);
          return;
        }
        if (frame.type === LINK_FRAME.close && Array.from(frame.reason).length > 120) return;
        expect(decodeLinkFrame(encodeLinkFrame(frame))).toEqual(frame);
      }),
      propertyRuns(1000),
    );
  });
});
