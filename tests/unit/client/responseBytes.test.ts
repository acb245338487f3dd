import { describe, expect, it } from 'vitest';
import { responseBytes } from '../../../lib/client/responseBytes';
import { ChunkIntegrityError } from '../../../lib/client/verifiedChunks';

const bytes = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 7) % 256);

/** A body arriving in `parts` pieces, as a byte stream (BYOB reads) or as a plain one (the fallback). */
function body(data: Uint8Array, parts: number, type: 'bytes' | 'default'): Response {
  const step = Math.ceil(data.length / parts) || 1;
  let at = 0;
  const pull = (controller: ReadableStreamDefaultController<Uint8Array> | ReadableByteStreamController) => {
    if (at >= data.length) {
      controller.close();
      // A byte stream closing under a pending BYOB read must answer it with no bytes (the Streams standard).
      if ('byobRequest' in controller) controller.byobRequest?.respond(0);
      return;
    }
    controller.enqueue(data.slice(at, at + step));
    at += step;
  };
  const stream =
    type === 'bytes' ? new ReadableStream({ type: 'bytes', pull }) : new ReadableStream<Uint8Array>({ pull });
  return new Response(stream);
}

describe.each(['bytes', 'default'] as const)('FILE-5 a chunk body read whole (%s stream)', (type) => {
  it('FILE-5 reads the announced bytes exactly, whatever pieces they come in', async () => {
    const read = await responseBytes(body(bytes, 7, type), bytes.length);
    expect(read.byteLength).toBe(bytes.length);
    expect(Buffer.from(read).equals(Buffer.from(bytes))).toBe(true);
  });

  it('FILE-5 reads an empty body as no bytes', async () => {
    expect((await responseBytes(body(new Uint8Array(0), 1, type), 0)).byteLength).toBe(0);
  });

  it('FILE-2 refuses a body shorter than announced', async () => {
    await expect(responseBytes(body(bytes, 3, type), bytes.length + 1)).rejects.toBeInstanceOf(ChunkIntegrityError);
  });

  it('FILE-2 refuses a body longer than announced', async () => {
    await expect(responseBytes(body(bytes, 3, type), bytes.length - 1)).rejects.toBeInstanceOf(ChunkIntegrityError);
  });
});
