import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FILE_CHANGED_MESSAGE } from '../../../lib/protocol/files';
import { readVerifiedChunks, type ChunkHeader, type VerifiedChunk } from '../../../lib/client/verifiedChunks';

/** A file served in `step`-byte chunks, with hooks to damage answers. */
function serve(file: Uint8Array, step: number, tamper: (chunk: VerifiedChunk) => VerifiedChunk = (c) => c) {
  const requested: number[] = [];
  const read = async (offset: number): Promise<VerifiedChunk> => {
    requested.push(offset);
    const data = file.subarray(offset, Math.min(file.length, offset + step));
    const end = offset + data.length;
    const header: ChunkHeader = {
      offset,
      nextOffset: end >= file.length ? null : end,
      byteCount: data.length,
      size: file.length,
      contentVersion: 'v1',
      modifiedAt: 1,
      mimeType: 'application/octet-stream',
      sha256: createHash('sha256').update(data).digest('hex'),
    };
    return tamper({ header, data: new Uint8Array(data) });
  };
  return { read, requested };
}

async function collect(read: (offset: number) => Promise<VerifiedChunk>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of readVerifiedChunks(read, { inFlight: 3 })) parts.push(chunk.data);
  return new Uint8Array(Buffer.concat(parts));
}

const file = new Uint8Array(
  Buffer.from(Array.from({ length: 1000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('')),
);

describe('FILE-2 verified chunk reader', () => {
  it('FILE-2 reassembles a file byte-identical from chunks requested ahead', async () => {
    const { read, requested } = serve(file, 64);
    expect(Buffer.from(await collect(read)).equals(Buffer.from(file))).toBe(true);
    expect(new Set(requested).size).toBe(Math.ceil(file.length / 64));
  });

  it('FILE-2 reads an empty file as one empty chunk', async () => {
    const { read } = serve(new Uint8Array(0), 64);
    expect((await collect(read)).length).toBe(0);
  });

  it('FILE-2 a changed content version after the first chunk discards the read with the message', async () => {
    const { read } = serve(file, 64, (c) =>
      c.header.offset >= 128 ? { ...c, header: { ...c.header, contentVersion: 'v2' } } : c,
    );
    await expect(collect(read)).rejects.toThrow(FILE_CHANGED_MESSAGE);
  });

  it('FILE-2 a changed size discards the read with the message', async () => {
    const { read } = serve(file, 64, (c) =>
      c.header.offset === 64 ? { ...c, header: { ...c.header, size: 2000 } } : c,
    );
    await expect(collect(read)).rejects.toThrow(FILE_CHANGED_MESSAGE);
  });

  it('FILE-2 a chunk whose bytes do not match its SHA-256 is refused', async () => {
    const { read } = serve(file, 64, (c) => {
      if (c.header.offset !== 192) return c;
      const data = new Uint8Array(c.data);
      data[3] = (data[3] ?? 0) ^ 1;
      return { ...c, data };
    });
    await expect(collect(read)).rejects.toThrow(/SHA-256 mismatch/);
  });

  it('FILE-2 an answer for the wrong offset or with missing bytes is refused', async () => {
    const wrongOffset = serve(file, 64, (c) =>
      c.header.offset === 64 ? { ...c, header: { ...c.header, offset: 0 } } : c,
    );
    await expect(collect(wrongOffset.read)).rejects.toThrow(/offset 0, expected 64/);
    const short = serve(file, 64, (c) => (c.header.offset === 64 ? { ...c, data: c.data.subarray(1) } : c));
    await expect(collect(short.read)).rejects.toThrow(/63 bytes, announced 64/);
  });
});
