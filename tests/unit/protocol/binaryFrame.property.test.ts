import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BINARY_HEADER_LENGTH_BYTES, decodeBinaryFrame, encodeBinaryFrame } from '../../../lib/protocol/binaryFrame';
import { propertyRuns } from '../../fixtures/propertyRuns';

/** A JSON-RPC header as either side writes one: any JSON value, strings with any characters. */
const header = fc.jsonValue({ maxDepth: 3 });

/** Bytes shaped like a binary frame (a header length that may lie, a header that may not be JSON), or anything. */
const frameLikeBytes = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc
    .tuple(
      fc.oneof(
        fc.jsonValue({ maxDepth: 2 }).map((v) => new TextEncoder().encode(JSON.stringify(v))),
        fc.uint8Array({ maxLength: 60 }),
      ),
      fc.integer({ min: -5, max: 5 }),
      fc.uint8Array({ maxLength: 100 }),
    )
    .map(([headerBytes, lie, data]) => {
      const frame = new Uint8Array(BINARY_HEADER_LENGTH_BYTES + headerBytes.length + data.length);
      new DataView(frame.buffer).setUint32(0, Math.max(0, headerBytes.length + lie));
      frame.set(headerBytes, BINARY_HEADER_LENGTH_BYTES);
      frame.set(data, BINARY_HEADER_LENGTH_BYTES + headerBytes.length);
      return frame;
    }),
);

describe('RPC-3 binary frames (lib/protocol/binaryFrame.ts), for any input', () => {
  it('RPC-3 a header and bytes come back as they were sent, from a frame anywhere in its buffer', () => {
    fc.assert(
      fc.property(header, fc.uint8Array({ maxLength: 4096 }), fc.nat(16), (sent, data, offset) => {
        const frame = encodeBinaryFrame(sent, data);
        // The socket may hand the frame over as a view into a larger buffer.
        const buffer = new Uint8Array(offset + frame.length + 3);
        buffer.set(frame, offset);
        const decoded = decodeBinaryFrame(buffer.subarray(offset, offset + frame.length));
        expect(decoded.header).toEqual(JSON.parse(JSON.stringify(sent)));
        expect(Buffer.from(decoded.data).equals(Buffer.from(data))).toBe(true);
      }),
      propertyRuns(),
    );
  });

  it('RPC-3 any bytes decode to a header and bytes, or to an Error that names the binary frame', () => {
    fc.assert(
      fc.property(frameLikeBytes, (bytes) => {
        try {
          const decoded = decodeBinaryFrame(bytes);
          expect(decoded.data.length).toBeLessThanOrEqual(bytes.length - BINARY_HEADER_LENGTH_BYTES);
        } catch (error) {
          expect((error as Error).constructor).toBe(Error);
          expect((error as Error).message).toMatch(/^binary frame/);
        }
      }),
      propertyRuns(1000),
    );
  });
});
