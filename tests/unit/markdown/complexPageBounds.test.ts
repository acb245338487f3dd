import { describe, expect, it } from 'vitest';
import { convertPage } from '../../../lib/markdown/convertPage';
import { MAX_PAGE_ELEMENTS, MAX_PAGE_NESTING } from '../../../lib/markdown/markupShape';
import { readabilityCases } from '../../fixtures/readabilityCorpus';

// SEC-9 (reader part), MD-3: a page too deep or too large for Readability is never handed to it;
// it falls back to its text, and the result says why. Before this bound, 2,000 nested divs kept
// the converter busy for minutes (100,000 for far longer), which froze the reader's worker.

const nested = (depth: number) =>
  `<!doctype html><html><head><title>Bomb</title></head><body>${'<div>'.repeat(depth)}<p>The words at the bottom of the bomb.</p>${'</div>'.repeat(depth)}<p>After the bomb &amp; <b>more</b> [not a link](javascript:alert(1)).</p></body></html>`;

describe('SEC-9 MD-3 bounded input before Readability', () => {
  it('SEC-9 100,000 nested divs fall back to the page text with a visible reason', () => {
    const page = convertPage(nested(100_000), 'https://bomb.example/');
    expect(page.notice).toMatch(
      /^This page is too complex to extract an article from: its elements nest more than \d+ deep\. Showing its text only\.$/,
    );
    expect(page.view).toBe('fullPage');
    expect(page.articleFound).toBe(false);
    expect(page.title).toBe('Bomb');
    expect(page.markdown).toContain('The words at the bottom of the bomb.');
    // Text only: markup and Markdown syntax of the page arrive escaped, never as links.
    expect(page.markdown).toContain('After the bomb & more \\[not a link\\](javascript:alert(1)).');
    expect(page.markdown).not.toMatch(/[^\\]\]\(javascript:/);
  });

  it('SEC-9 a page with too many elements falls back the same way', () => {
    const html = `<html><body>${'<span>w</span>'.repeat(MAX_PAGE_ELEMENTS + 10)}</body></html>`;
    const page = convertPage(html, 'https://many.example/');
    expect(page.notice).toMatch(/too complex to extract an article from: it has more than [\d,]+ elements/);
    expect(page.markdown.length).toBeGreaterThan(MAX_PAGE_ELEMENTS);
  });

  it('SEC-9 pages within the bounds convert as before, without a notice', () => {
    const page = convertPage(nested(MAX_PAGE_NESTING - 10), 'https://deep-but-fine.example/');
    expect(page.notice).toBeNull();
    expect(page.markdown).toContain('The words at the bottom of the bomb.');
    for (const corpus of readabilityCases().slice(0, 20))
      expect({ name: corpus.name, notice: convertPage(corpus.source, 'https://corpus.example/').notice }).toEqual({
        name: corpus.name,
        notice: null,
      });
  });
});
