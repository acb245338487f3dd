import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertPage } from '../../../lib/markdown/convertPage';
import { REPO_ROOT } from '../../../server/runtime/paths';
import { READABILITY_PAGE_URL, readabilityCases } from '../../fixtures/readabilityCorpus';
import { htmlText, markdownText, tokenF1 } from '../../fixtures/textSimilarity';

// MD-2 on every Readability test page: the page goes through our worker's converter (linkedom,
// Readability, Turndown + GFM); the Markdown, rendered as the reader renders it, must read like
// Readability's expected article. Each case's score is written to test-results/markdown-corpus.json
// (ignored by git: a test run never changes a tracked file).

const REPORT = path.join(REPO_ROOT, 'test-results', 'markdown-corpus.json');

describe('MD-2 Readability corpus through the worker converter', () => {
  it('MD-2 the Markdown text of every corpus page matches expected.html (median token F1 ≥ 0.98)', () => {
    const cases = readabilityCases();
    expect(cases.length).toBeGreaterThanOrEqual(80);
    const scores = cases.map(({ name, source, expected }) => {
      const page = convertPage(source, READABILITY_PAGE_URL, { bodyOnly: true });
      const f1 = tokenF1(markdownText(page.markdown), htmlText(expected));
      return { name, f1: Number(f1.toFixed(4)), view: page.view };
    });
    const sorted = scores.map((s) => s.f1).sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const table = scores.map((s) => `${s.f1.toFixed(3)}  ${s.view.padEnd(8)}  ${s.name}`).join('\n');
    console.log(
      `token F1 per case (Markdown text vs expected.html text):\n${table}\nmedian ${median.toFixed(4)}, below 0.9: ${
        scores
          .filter((s) => s.f1 < 0.9)
          .map((s) => s.name)
          .join(', ') || 'none'
      }`,
    );
    fs.mkdirSync(path.dirname(REPORT), { recursive: true });
    fs.writeFileSync(
      REPORT,
      JSON.stringify({ rule: 'MD-2', metric: 'token F1 of words', median, cases: scores }, null, 2) + '\n',
    );

    expect(median).toBeGreaterThanOrEqual(0.98);
    // Every page converts to something readable: none comes out empty.
    expect(scores.filter((s) => s.f1 === 0)).toEqual([]);
  }, 300_000);

  it('MD-2 the similarity measure tells a different page from the expected one', () => {
    const [first, second] = readabilityCases();
    const ours = markdownText(convertPage(first!.source, READABILITY_PAGE_URL, { bodyOnly: true }).markdown);
    expect(tokenF1(ours, htmlText(first!.expected))).toBeGreaterThan(0.95);
    expect(tokenF1(ours, htmlText(second!.expected))).toBeLessThan(0.6);
  });
});
