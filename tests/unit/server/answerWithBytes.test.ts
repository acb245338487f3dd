import { describe, expect, it } from 'vitest';
import { decodeBinaryFrame } from '../../../lib/protocol/binaryFrame';
import { answerWithBytes, BinaryFramePool, BinaryReply } from '../../../server/rpc/binaryReply';

const bytes = Buffer.from('hello, bytes \u00e9\u0000\u00ff', 'latin1');

/** A read that fills the frame it is given, as the file and output readers do. */
function readHello(into: (n: number) => Buffer) {
  const target = into(bytes.length);
  bytes.copy(target);
  return { bytes: target, result: { offset: 0, availableBytes: bytes.length } };
}

describe('answerWithBytes: the one way a method answers with bytes', () => {
  it('RPC-4 base64 puts the bytes in dataBase64 and byteCount beside the rest of the result', () => {
    const answer = answerWithBytes(new BinaryFramePool(1024), 'base64', readHello);
    expect(answer).toEqual({
      offset: 0,
      availableBytes: bytes.length,
      dataBase64: bytes.toString('base64'),
      byteCount: bytes.length,
    });
    expect(answerWithBytes(new BinaryFramePool(1024), undefined, readHello)).toEqual(answer);
  });

  it('RPC-4 binary answers with one frame: the JSON header with an empty dataBase64, then the same bytes', () => {
    const answer = answerWithBytes(new BinaryFramePool(1024), 'binary', readHello);
    expect(answer).toBeInstanceOf(BinaryReply);
    const decoded = decodeBinaryFrame((answer as BinaryReply).encode(9));
    expect(decoded.header).toEqual({
      jsonrpc: '2.0',
      id: 9,
      result: { offset: 0, availableBytes: bytes.length, dataBase64: '', byteCount: bytes.length },
    });
    expect(Buffer.from(decoded.data)).toEqual(bytes);
  });

  it('RPC-4 a result without bytes is answered as is in base64, and as a frame with no bytes in binary', () => {
    const notFound = () => ({ bytes: null, result: { status: 404 as const } });
    expect(answerWithBytes<{ status: 200 }, { status: 404 }>(new BinaryFramePool(1024), 'base64', notFound)).toEqual({
      status: 404,
    });
    const binary = answerWithBytes<{ status: 200 }, { status: 404 }>(new BinaryFramePool(1024), 'binary', notFound);
    const decoded = decodeBinaryFrame((binary as BinaryReply).encode('x'));
    expect(decoded.header).toEqual({ jsonrpc: '2.0', id: 'x', result: { status: 404, dataBase64: '', byteCount: 0 } });
    expect(decoded.data).toHaveLength(0);
  });

  it('RPC-4 a read asking for more than the pool carries fails, and a failing read reaches the caller', () => {
    expect(() => answerWithBytes(new BinaryFramePool(4), 'base64', readHello)).toThrow(/at most 4 bytes/);
    expect(() =>
      answerWithBytes(new BinaryFramePool(1024), 'binary', () => {
        throw new Error('disk went away');
      }),
    ).toThrow('disk went away');
  });
});
