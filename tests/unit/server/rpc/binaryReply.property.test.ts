import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBinaryFrame } from '../../../../lib/protocol/binaryFrame';
import { BinaryFramePool } from '../../../../server/rpc/binaryReply';
import { propertyRuns } from '../../../fixtures/propertyRuns';

const MAX_DATA_BYTES = 4096;

/** One answer: a request id, the rest of its result, and its bytes. */
const answer = fc.record({
  id: fc.oneof(fc.integer(), fc.string({ unit: 'binary', maxLength: 40 })),
  extra: fc.dictionary(
    fc.string({ maxLength: 10 }),
    fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.integer(), fc.boolean(), fc.constant(null)),
    { maxKeys: 5 },
  ),
  data: fc.uint8Array({ maxLength: MAX_DATA_BYTES }),
});

describe('RPC-3 binary answers from pooled frames (server/rpc/binaryReply.ts) read back by the client decoder', () => {
  it('RPC-3 any sequence of answers through one pool decodes to each answer’s id, result and bytes, whatever the frames held before', () => {
    fc.assert(
      fc.property(fc.array(answer, { minLength: 1, maxLength: 8 }), (answers) => {
        const pool = new BinaryFramePool(MAX_DATA_BYTES);
        for (const { id, extra, data } of answers) {
          const reply = pool.reserve();
          reply.data(data.length).set(data);
          const result = { ...extra, dataBase64: '', byteCount: data.length };
          let frame: Buffer;
          try {
            frame = reply.complete(result).encode(id);
          } catch (error) {
            // A header past the room in front of the bytes is refused in words, never sent cut.
            expect((error as Error).message).toBe('binary reply header too large');
            reply.release();
            continue;
          }
          const decoded = decodeBinaryFrame(frame);
          expect(decoded.header).toEqual({ jsonrpc: '2.0', id, result: JSON.parse(JSON.stringify(result)) });
          expect(Buffer.from(decoded.data).equals(Buffer.from(data))).toBe(true);
          reply.release();
        }
      }),
      propertyRuns(),
    );
  });

  it('RPC-3 a reply asked for more bytes than its frame holds says so instead of writing past it', () => {
    fc.assert(
      fc.property(fc.integer({ min: MAX_DATA_BYTES + 1, max: 4 * MAX_DATA_BYTES }), (n) => {
        const reply = new BinaryFramePool(MAX_DATA_BYTES).reserve();
        expect(() => reply.data(n)).toThrow(/binary answers carry at most/);
      }),
      propertyRuns(50),
    );
  });
});
