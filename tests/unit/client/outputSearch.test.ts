import { describe, expect, it } from 'vitest';
import { encodeQuery, findNext, findPrevious, indexOfQuery, lastIndexOfQuery } from '../../../lib/client/outputSearch';

const text = (s: string) => new TextEncoder().encode(s);

/** Reads from an in-memory output and records the ranges asked for. */
function reader(output: Uint8Array) {
  const reads: [number, number][] = [];
  return {
    reads,
    read: async (offset: number, length: number) => {
      reads.push([offset, length]);
      return output.subarray(offset, offset + length);
    },
  };
}

describe('find in output (PWA-2)', () => {
  it('PWA-2 matches ASCII case-insensitively and UTF-8 exactly', () => {
    expect(indexOfQuery(text('Error: ERROR error'), encodeQuery('error'))).toBe(0);
    expect(indexOfQuery(text('Error: ERROR error'), encodeQuery('error'), 1)).toBe(7);
    expect(lastIndexOfQuery(text('Error: ERROR error'), encodeQuery('error'))).toBe(13);
    expect(indexOfQuery(text('grüße, GRÜSSE'), encodeQuery('grüße'))).toBe(0);
    expect(indexOfQuery(text('abc'), encodeQuery(''))).toBe(-1);
  });

  it('PWA-2 finds the next and previous match across page boundaries, far from the start', async () => {
    const size = 1_000_000;
    const output = new Uint8Array(size).fill(0x2e);
    const needle = text('needle');
    const spots = [100, 4095, 523_000, 999_994];
    for (const spot of spots) output.set(needle, spot);
    const { read, reads } = reader(output);
    const query = encodeQuery('NEEDLE');
    const found: number[] = [];
    for (let at = await findNext(read, size, query, 0, 4096); at !== null; at = await findNext(read, size, query, at + 1, 4096)) found.push(at);
    expect(found).toEqual(spots);
    // Pages were read one at a time, never the whole output.
    expect(Math.max(...reads.map(([, length]) => length))).toBe(4096);
    const back: number[] = [];
    for (let at = await findPrevious(read, size, query, size, 4096); at !== null; at = await findPrevious(read, size, query, at, 4096)) back.push(at);
    expect(back).toEqual([...spots].reverse());
    // Every read was a whole page at a page boundary, as the viewer and the offline cache hold them (PWA-3).
    for (const [offset, length] of reads) {
      expect(offset % 4096).toBe(0);
      expect(length).toBe(Math.min(4096, size - offset));
    }
    expect(await findNext(read, size, encodeQuery('absent'), 0, 65536)).toBeNull();
  });

  it('PWA-2 a match straddling a page boundary is found forward and backward, from inside a page', async () => {
    const size = 10_000;
    const output = new Uint8Array(size).fill(0x2e);
    output.set(text('boundary'), 4092); // 4092..4099 crosses 4096
    output.set(text('boundary'), 8190); // 8190..8197 crosses 8192
    const { read } = reader(output);
    const query = encodeQuery('boundary');
    expect(await findNext(read, size, query, 10, 4096)).toBe(4092);
    expect(await findNext(read, size, query, 4093, 4096)).toBe(8190);
    expect(await findNext(read, size, query, 8191, 4096)).toBeNull();
    expect(await findPrevious(read, size, query, 9000, 4096)).toBe(8190);
    expect(await findPrevious(read, size, query, 8190, 4096)).toBe(4092);
    expect(await findPrevious(read, size, query, 4092, 4096)).toBeNull();
  });

  it('PWA-2 a search can be stopped', async () => {
    const { read } = reader(new Uint8Array(100_000));
    const abort = new AbortController();
    abort.abort();
    await expect(findNext(read, 100_000, encodeQuery('x'), 0, 4096, abort.signal)).rejects.toThrow();
  });
});
