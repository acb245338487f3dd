import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHighlightService } from '../../../lib/highlight/highlightService';
import { styledRuns, unpackLine, type TokenLine } from '../../../lib/highlight/tokens';
import { REPO_ROOT } from '../../../server/runtime/paths';

/** Each character's look (colour and font style), '' for the default: what the reader sees. */
function looks(line: TokenLine): string[] {
  return line.flatMap(([text, colour, fontStyle]) =>
    [...text].map((ch) => (/\s/.test(ch) && (fontStyle & 12) === 0 ? '' : `${colour}/${fontStyle}`)),
  );
}
const plainLook = (line: TokenLine) => looks(line).map((look) => (look === '/0' ? '' : look));

describe('PERF-6 the runs a highlighted line is drawn with', () => {
  it('PERF-6 joins neighbours of one look and gives undecorated blanks the default look', () => {
    const tokens: TokenLine = [
      ['  ', '#111111', 0],
      ['export', '#d73a49', 0],
      [' ', '', 0],
      ['const', '#d73a49', 0],
      [' ', '#032f62', 0],
      ['x', '', 0],
      [':', '', 0],
      ['', '#005cc5', 0],
      [' ', '', 4],
      ['"a"', '#032f62', 1],
      ['"b"', '#032f62', 1],
    ];
    expect(styledRuns(tokens)).toEqual([
      ['  ', '', 0],
      ['export', '#d73a49', 0],
      [' ', '', 0],
      ['const', '#d73a49', 0],
      [' x:', '', 0],
      [' ', '', 4],
      ['"a""b"', '#032f62', 1],
    ]);
  });

  it("PERF-6 HL-1 keeps the text and every visible character's look of a real TypeScript file, far down it too", async () => {
    const source = fs.readFileSync(path.join(REPO_ROOT, 'tests', 'fixtures', 'highlight', 'sample.ts'), 'utf8');
    // The sample many times over, so lines thousands of batches' worth down are checked too.
    const text = Array.from({ length: 300 }, () => source).join('\n');
    const lines = text.split('\n');
    const service = createHighlightService();
    expect(await service.open('doc', text, 'typescript', 'light')).toBe(true);
    const period = source.split('\n').length;
    const runsOf: TokenLine[] = [];
    let tokensTotal = 0;
    for (let done = false, rounds = 0; !done && rounds < 1000; rounds++) {
      const batch = service.next('doc', 500);
      done = batch.done;
      for (let i = batch.firstLine; i < batch.firstLine + batch.lineCount; i++) {
        const tokens = unpackLine(batch, i, lines[i]!);
        const runs = styledRuns(tokens);
        expect(runs.map(([t]) => t).join('')).toBe(lines[i]);
        expect(plainLook(runs)).toEqual(plainLook(tokens));
        runsOf[i] = runs;
        tokensTotal += tokens.length;
      }
    }
    expect(runsOf).toHaveLength(lines.length);
    // The point of runs: markedly fewer elements (runs of a non-default look) than tokens.
    const elements = runsOf.reduce(
      (sum, runs) => sum + runs.filter(([, colour, fontStyle]) => colour !== '' || fontStyle !== 0).length,
      0,
    );
    expect(elements).toBeLessThan(tokensTotal * 0.8);
    // Far down (the 300th copy, several batches on), each line is drawn as in the first copy.
    const last = lines.length - period;
    expect(last).toBeGreaterThan(2000);
    for (let i = 0; i < period; i++) expect(runsOf[last + i]).toEqual(runsOf[i]);
    expect(runsOf.slice(0, period).some((runs) => runs.some(([, colour]) => colour !== ''))).toBe(true);
  }, 120_000);
});
