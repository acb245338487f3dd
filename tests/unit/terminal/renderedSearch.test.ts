import { describe, expect, it } from 'vitest';
import { findRenderedNext, findRenderedPrevious, type MatchPlace } from '../../../lib/terminal/renderedSearch';

const encoder = new TextEncoder();

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

async function allForward(output: Uint8Array, query: string, pageBytes: number): Promise<MatchPlace[]> {
  const { read } = reader(output);
  const found: MatchPlace[] = [];
  let at: MatchPlace | null = { offset: 0, column: 0 };
  let inclusive = true;
  for (let i = 0; i < 100 && at; i++) {
    at = await findRenderedNext(read, output.length, query, at, inclusive, pageBytes);
    inclusive = false;
    if (at) found.push(at);
  }
  return found;
}

async function allBackward(output: Uint8Array, query: string, pageBytes: number): Promise<MatchPlace[]> {
  const { read } = reader(output);
  const found: MatchPlace[] = [];
  let at: MatchPlace | null = { offset: output.length, column: 0 };
  for (let i = 0; i < 100 && at; i++) {
    at = await findRenderedPrevious(read, output.length, query, at, pageBytes);
    if (at) found.push(at);
  }
  return found;
}

describe('find in the rendered output (PWA-2, UX-2)', () => {
  it('UX-2 matches the text a terminal shows, not overwritten states nor escape sequences, and reports byte offsets', async () => {
    const text = 'get 10%\rget 99%\rget 100%\n\u001b[31mred\u001b[0m words\nplain red words\n';
    const output = encoder.encode(text);
    // "10%" was overwritten by "100%" (which does not contain it); "red words" is split by an escape in the bytes.
    expect(await allForward(output, '10%', 4096)).toEqual([]);
    expect(await allForward(output, 'RED WORDS', 4096)).toEqual([
      { offset: text.indexOf('\u001b[31m'), column: 0 },
      { offset: text.indexOf('plain'), column: 6 },
    ]);
    expect(await allBackward(output, 'red words', 4096)).toEqual([
      { offset: text.indexOf('plain'), column: 6 },
      { offset: text.indexOf('\u001b[31m'), column: 0 },
    ]);
  });

  it('PWA-2 UX-2 finds matches across page boundaries, in rows and lines cut by them, reading one page at a time', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++)
      lines.push(i % 700 === 0 ? `\u001b[1mneedle\u001b[0m ${i} ✓` : `hay ${i} ✓ ${'.'.repeat(i % 37)}`);
    const text = lines.join('\n') + '\n';
    const output = encoder.encode(text);
    const expected = lines.flatMap((line, i) =>
      i % 700 === 0
        ? [{ offset: encoder.encode(lines.slice(0, i).join('\n') + (i ? '\n' : '')).length, column: 0 }]
        : [],
    );
    expect(expected.length).toBe(5);
    for (const pageBytes of [1000, 4096, 1 << 20]) {
      expect(await allForward(output, 'needle', pageBytes)).toEqual(expected);
      expect(await allBackward(output, 'needle', pageBytes)).toEqual([...expected].reverse());
    }
    const { read, reads } = reader(output);
    await findRenderedNext(read, output.length, 'needle', expected[1]!, false, 1000);
    expect(Math.max(...reads.map(([, length]) => length))).toBe(1000);
  });

  it('UX-2 several matches in one row each have their column; a search from a row includes it only when asked', async () => {
    const output = encoder.encode('ab ab\nab\n');
    const { read } = reader(output);
    expect(await findRenderedNext(read, output.length, 'ab', { offset: 0, column: 0 }, true, 4096)).toEqual({
      offset: 0,
      column: 0,
    });
    expect(await findRenderedNext(read, output.length, 'ab', { offset: 0, column: 0 }, false, 4096)).toEqual({
      offset: 0,
      column: 3,
    });
    expect(await findRenderedNext(read, output.length, 'ab', { offset: 0, column: 3 }, false, 4096)).toEqual({
      offset: 6,
      column: 0,
    });
    expect(await findRenderedPrevious(read, output.length, 'ab', { offset: 6, column: 0 }, 4096)).toEqual({
      offset: 0,
      column: 3,
    });
    expect(await findRenderedNext(read, output.length, '', { offset: 0, column: 0 }, true, 4096)).toBeNull();
  });

  it('PWA-2 a search can be stopped', async () => {
    const output = encoder.encode('x\n'.repeat(10_000));
    const abort = new AbortController();
    abort.abort();
    await expect(
      findRenderedNext(reader(output).read, output.length, 'y', { offset: 0, column: 0 }, true, 1000, abort.signal),
    ).rejects.toThrow();
  });
});

describe('find skips pages that cannot show the text (PWA-2)', () => {
  const rendered = async (text: string, query: string) => {
    const bytes = encoder.encode(text);
    return allForward(bytes, query, 64);
  };

  it('PWA-2 finds text split by colours, and text that only a carriage return or a cursor move puts together', async () => {
    // Each of these holds the query only once rendered: the skip must not drop them.
    expect(await rendered('a\u001b[1;31mbc\u001b[0md\n', 'abcd')).toEqual([{ offset: 0, column: 0 }]);
    expect(await rendered('abcdef\rXY\n', 'XYcd')).toEqual([{ offset: 0, column: 0 }]);
    expect(await rendered('ab\u001b[3Ccd\n', 'ab   cd')).toEqual([{ offset: 0, column: 0 }]);
    expect(await rendered('abX\bc\n', 'abc')).toEqual([{ offset: 0, column: 0 }]);
  });

  it('PWA-2 a plain or coloured page without the text reads on and finds it on a later page', async () => {
    const filler = Array.from({ length: 40 }, (_, i) => `\u001b[32mline\u001b[0m ${i}`).join('\n');
    const text = `${filler}\nthe needle\n${filler}\n`;
    expect(await rendered(text, 'NEEDLE')).toEqual([{ offset: filler.length + 1, column: 4 }]);
  });
});
