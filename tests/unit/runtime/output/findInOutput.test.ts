import { describe, expect, it } from 'vitest';
import { findInOutput, type FindLimits } from '../../../../server/runtime/output/findInOutput';
import { findRenderedNext, nextMatchIndex, type MatchPlace } from '../../../../lib/terminal/renderedSearch';
import { seededRandom } from '../../../fixtures/seededRandom';

const encoder = new TextEncoder();
const limits = (changes: Partial<FindLimits> = {}): FindLimits => ({
  maxMatches: 10_000,
  timeBudgetMs: 60_000,
  pageBytes: 4096,
  ...changes,
});
const readerOf = (bytes: Uint8Array) => async (offset: number, length: number) =>
  bytes.subarray(offset, offset + length);

/** Lines of random words, some with escapes and carriage returns, and a needle on known lines. */
function seededOutput(seed: number, lines: number): { bytes: Uint8Array; text: string } {
  const random = seededRandom(seed);
  const words = ['alpha', 'beta', 'gamma', 'needle', 'delta', '\u001b[32mok\u001b[0m', 'step 1%\rstep 100%'];
  let text = '';
  for (let i = 0; i < lines; i++) {
    const count = 1 + Math.floor(random() * 8);
    text += Array.from({ length: count }, () => words[Math.floor(random() * words.length)]).join(' ') + '\n';
  }
  return { bytes: encoder.encode(text), text };
}

/** The same matches found one at a time, as the app finds them in pages it reads itself. */
async function oneAtATime(bytes: Uint8Array, query: string, pageBytes: number): Promise<MatchPlace[]> {
  const found: MatchPlace[] = [];
  let at: MatchPlace | null = { offset: 0, column: 0 };
  let inclusive = true;
  while (at) {
    at = await findRenderedNext(readerOf(bytes), bytes.length, query, at, inclusive, pageBytes);
    inclusive = false;
    if (at) found.push(at);
  }
  return found;
}

describe('find in an output on the desktop (PWA-2)', () => {
  it('PWA-2 answers every match in order, the same places as the page-by-page search, across page boundaries', async () => {
    for (const seed of [1, 2, 3]) {
      const { bytes } = seededOutput(seed, 3000);
      const answer = await findInOutput(
        readerOf(bytes),
        bytes.length,
        'NEEDLE',
        limits({ pageBytes: 1000 + seed * 17 }),
        new AbortController().signal,
      );
      expect(answer.complete).toBe(true);
      expect(answer.searchedBytes).toBe(bytes.length);
      expect(answer.matches.length).toBeGreaterThan(100);
      expect(answer.matches).toEqual(await oneAtATime(bytes, 'needle', 4096));
    }
  });

  it('PWA-2 matches what a terminal shows: not an overwritten progress state, and words split by an escape', async () => {
    const text = 'step 1%\rstep 100%\n\u001b[32mok\u001b[0m done\n';
    const bytes = encoder.encode(text);
    expect(
      (await findInOutput(readerOf(bytes), bytes.length, 'step 1%', limits(), new AbortController().signal)).matches,
    ).toEqual([]);
    expect(
      (await findInOutput(readerOf(bytes), bytes.length, 'ok done', limits(), new AbortController().signal)).matches,
    ).toEqual([{ offset: text.indexOf('\u001b'), column: 0 }]);
  });

  it('PWA-2 stops at the match limit and says it stopped', async () => {
    const bytes = encoder.encode('x\n'.repeat(50));
    const answer = await findInOutput(
      readerOf(bytes),
      bytes.length,
      'x',
      limits({ maxMatches: 7 }),
      new AbortController().signal,
    );
    expect(answer.matches).toHaveLength(7);
    expect(answer.complete).toBe(false);
  });

  it('PWA-2 stops at its time budget with what it found so far (the clock is a parameter)', async () => {
    const { bytes } = seededOutput(9, 2000);
    let clock = 0;
    // Each page read moves the clock by 10 ms; the budget allows three pages.
    const read = async (offset: number, length: number) => {
      clock += 10;
      return bytes.subarray(offset, offset + length);
    };
    const answer = await findInOutput(
      read,
      bytes.length,
      'needle',
      limits({ timeBudgetMs: 25, pageBytes: 2048 }),
      new AbortController().signal,
      () => clock,
    );
    expect(answer.complete).toBe(false);
    const all = await oneAtATime(bytes, 'needle', 4096);
    expect(answer.matches.length).toBeGreaterThan(0);
    expect(answer.matches.length).toBeLessThan(all.length);
    expect(answer.matches).toEqual(all.slice(0, answer.matches.length));
  });

  it('PWA-2 a cancelled search answers with the places found before it was cancelled', async () => {
    const { bytes } = seededOutput(4, 2000);
    const abort = new AbortController();
    let reads = 0;
    const read = async (offset: number, length: number) => {
      if (++reads === 3) abort.abort();
      return bytes.subarray(offset, offset + length);
    };
    const answer = await findInOutput(read, bytes.length, 'needle', limits({ pageBytes: 2048 }), abort.signal);
    expect(answer.complete).toBe(false);
    expect(reads).toBe(3);
  });

  it('PWA-2 a read that fails is an error, not an empty answer', async () => {
    const read = async () => {
      throw new Error('The command output file ended early.');
    };
    await expect(findInOutput(read, 100, 'x', limits(), new AbortController().signal)).rejects.toThrow('ended early');
  });

  it('PWA-2 picks the next and previous match from the place shown last', () => {
    const matches = [
      { offset: 0, column: 3 },
      { offset: 10, column: 0 },
      { offset: 10, column: 5 },
      { offset: 40, column: 1 },
    ];
    expect(nextMatchIndex(matches, { offset: 0, column: 0 }, 'next', true)).toBe(0);
    expect(nextMatchIndex(matches, { offset: 10, column: 0 }, 'next', true)).toBe(1);
    expect(nextMatchIndex(matches, { offset: 10, column: 0 }, 'next', false)).toBe(2);
    expect(nextMatchIndex(matches, { offset: 40, column: 1 }, 'next', false)).toBe(-1);
    expect(nextMatchIndex(matches, { offset: 10, column: 5 }, 'previous', false)).toBe(1);
    expect(nextMatchIndex(matches, { offset: 0, column: 3 }, 'previous', false)).toBe(-1);
  });
});
