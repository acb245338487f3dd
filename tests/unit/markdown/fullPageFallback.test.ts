import { describe, expect, it } from 'vitest';
import { articleKeepsEnough, convertPage } from '../../../lib/markdown/convertPage';

// MD-3: when extraction fails or keeps too little, the whole page is converted, and the result
// says which view it is; either view can be asked for.

const PARAGRAPH =
  '<p>Readability scores paragraphs by their length and commas, so this one, which is long, and full of commas, counts as real content of an article.</p>';

describe('MD-3 article or full page', () => {
  it('MD-3 a page with an article gives the article; the full page is there on request', () => {
    const html = `<html><head><title>Story</title></head><body><nav><a href="/a">Home</a> <a href="/b">About</a></nav><article>${PARAGRAPH.repeat(8)}</article><footer>Footer words here</footer></body></html>`;
    const auto = convertPage(html, 'https://example.com/story', { bodyOnly: true });
    expect(auto.view).toBe('article');
    expect(auto.articleFound).toBe(true);
    expect(auto.markdown).not.toContain('Footer words here');
    const full = convertPage(html, 'https://example.com/story', { view: 'fullPage', bodyOnly: true });
    expect(full.view).toBe('fullPage');
    expect(full.markdown).toContain('Footer words here');
    expect(full.markdown).toContain('[About](https://example.com/b)');
  });

  it('MD-3 a page Readability finds no text in falls back to the whole page', () => {
    const html =
      '<html><head><title>Gallery</title></head><body><div><a href="/big.png"><img src="/small.png" alt="A picture"></a></div></body></html>';
    const page = convertPage(html, 'https://example.com/gallery/');
    expect(page.view).toBe('fullPage');
    expect(page.markdown).toContain('[![A picture](https://example.com/small.png)](https://example.com/big.png)');
    expect(page.markdown.startsWith('# Gallery\n')).toBe(true);
  });

  it('MD-3 a short article is too little when its page holds several times more text', () => {
    expect(articleKeepsEnough(0, 0)).toBe(false);
    expect(articleKeepsEnough(100, 300)).toBe(true);
    expect(articleKeepsEnough(100, 5000)).toBe(false);
    expect(articleKeepsEnough(2000, 100_000)).toBe(true);
  });
});
