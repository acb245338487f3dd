import { describe, expect, it } from 'vitest';
import { readerCorpus } from '../../fixtures/readerCorpus';
import { readabilityOnlyText, readerArticleText, scoreExtraction } from '../../fixtures/readerExtraction';
import { wordOverlap } from '../../fixtures/textSimilarity';

// MD-4 on real news and blog pages with article text written by people
// (tests/fixtures/reader-corpus): on the held-out half, which the extractor was never tuned on,
// the reader keeps less furniture than Readability alone (higher precision) and loses no more
// than RECALL_TOLERANCE of the article (recall). Figures are macro averages over pages.

const RECALL_TOLERANCE = 0.005;

describe('MD-4 article extraction on real pages', () => {
  it('MD-4 the corpus has both halves, split by site, each page with its expected text', () => {
    const pages = readerCorpus();
    const heldOut = pages.filter((page) => page.half === 'heldOut');
    const development = pages.filter((page) => page.half === 'development');
    expect(heldOut.length).toBeGreaterThanOrEqual(35);
    expect(development.length).toBeGreaterThanOrEqual(35);
    const heldOutSites = new Set(heldOut.map((page) => page.site));
    expect(development.filter((page) => heldOutSites.has(page.site))).toEqual([]);
    expect(pages.filter((page) => page.expected.trim().length < 100 || page.html.length < 1000)).toEqual([]);
  });

  it('MD-4 on the held-out half the reader has higher precision than Readability alone, recall within 0.005', () => {
    const scores = scoreExtraction(readerCorpus('heldOut'));
    const say = (name: string, f: { precision: number; recall: number; f1: number }) =>
      `${name}: precision ${f.precision.toFixed(4)}, recall ${f.recall.toFixed(4)}, F1 ${f.f1.toFixed(4)}`;
    console.log(
      `held-out half, ${scores.pages} pages\n${say('reader', scores.ours)}\n${say('Readability only', scores.readabilityOnly)}`,
    );
    expect(scores.ours.precision).toBeGreaterThan(scores.readabilityOnly.precision);
    expect(scores.ours.recall).toBeGreaterThanOrEqual(scores.readabilityOnly.recall - RECALL_TOLERANCE);
    expect(scores.ours.f1).toBeGreaterThan(scores.readabilityOnly.f1);
  }, 300_000);

  it("MD-1 the measure tells another page's article from the expected one", () => {
    const [first, second] = readerCorpus('heldOut');
    const expected = first!.expected;
    expect(wordOverlap(readerArticleText(first!.html, first!.url), expected).recall).toBeGreaterThan(0.9);
    expect(wordOverlap(readabilityOnlyText(first!.html), expected).recall).toBeGreaterThan(0.9);
    const other = wordOverlap(readerArticleText(second!.html, second!.url), expected);
    expect(other.precision).toBeLessThan(0.7);
    expect(other.recall).toBeLessThan(0.7);
  }, 60_000);
});
