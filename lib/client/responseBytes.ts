import { ChunkIntegrityError } from './verifiedChunks';

/**
 * The body of a chunk answer as exactly `byteCount` bytes (FILE-5). Read straight into one buffer
 * of that size where the body is a byte stream: `arrayBuffer()` grows its buffer as data comes and
 * copies it on the way, and every fresh page of memory costs a page fault, which dominates the
 * time of a large verified read (PERF-3). Elsewhere (an engine without byte streams) it falls
 * back to `arrayBuffer()`. A body longer or shorter than announced is refused.
 */
export async function responseBytes(answer: Response, byteCount: number): Promise<Uint8Array<ArrayBuffer>> {
  const reader = byobReader(answer);
  if (!reader) return exactly(new Uint8Array(await answer.arrayBuffer()), byteCount);
  try {
    let buffer = new ArrayBuffer(byteCount);
    let filled = 0;
    while (filled < byteCount) {
      const { done, value } = await reader.read(new Uint8Array(buffer, filled, byteCount - filled));
      if (done || !value) throw new ChunkIntegrityError(`${filled} bytes, announced ${byteCount}`);
      // Each read hands the buffer over and back (it is transferred, not copied).
      buffer = value.buffer;
      filled += value.byteLength;
    }
    // The announced count is read; anything after it is a body longer than its header says.
    const rest = await reader.read(new Uint8Array(1));
    if (!rest.done) throw new ChunkIntegrityError(`more bytes than the ${byteCount} announced`);
    return new Uint8Array(buffer);
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    reader.releaseLock();
  }
}

function byobReader(answer: Response): ReadableStreamBYOBReader | null {
  if (!answer.body) return null;
  try {
    return answer.body.getReader({ mode: 'byob' });
  } catch {
    // Not a byte stream in this engine.
    return null;
  }
}

function exactly(bytes: Uint8Array<ArrayBuffer>, byteCount: number): Uint8Array<ArrayBuffer> {
  if (bytes.byteLength !== byteCount)
    throw new ChunkIntegrityError(`${bytes.byteLength} bytes, announced ${byteCount}`);
  return bytes;
}
