import { describe, expect, it } from 'vitest';
import { withoutSiteName } from '../../../lib/markdown/articleTitle';
import { convertPage } from '../../../lib/markdown/convertPage';

// MD-1: the reader's heading is the article's own title, once, with the site name apart.

const PARAGRAPHS =
  '<p>The analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves, and it might act upon other things besides number.</p>'.repeat(
    6,
  );
const page = (head: string, article: string) =>
  `<!doctype html><html><head>${head}</head><body><nav>Home · About</nav><article>${article}</article></body></html>`;
const headings = (markdown: string) => markdown.split('\n').filter((line) => /^#{1,6} /.test(line));

describe('MD-1 the article’s own title', () => {
  it('MD-1 the article’s leading h1 is the heading, shown once, and the site name stands apart', () => {
    const html = page(
      '<title>Engines | Example Site</title><meta property="og:site_name" content="Example Site">',
      `<h1>Notes on the Engine</h1>${PARAGRAPHS}<h2>Later</h2>${PARAGRAPHS}`,
    );
    const converted = convertPage(html, 'https://example.com/engine');
    expect(converted.view).toBe('article');
    expect(converted.title).toBe('Notes on the Engine');
    expect(headings(converted.markdown)).toEqual(['# Notes on the Engine', '## Later']);
    expect(converted.markdown).toContain('\n\nExample Site\n\n');
  });

  it('MD-1 without an h1 the found title loses the site name the page added to it', () => {
    const html = page(
      '<title>Notes on the Engine — Example Site</title><meta property="og:site_name" content="Example Site">',
      PARAGRAPHS,
    );
    const converted = convertPage(html, 'https://example.com/engine');
    expect(converted.title).toBe('Notes on the Engine');
    expect(headings(converted.markdown)).toEqual(['# Notes on the Engine']);
  });

  it('MD-1 the body alone keeps the article’s heading (nothing dropped)', () => {
    const html = page('<title>t</title>', `<h1>Notes on the Engine</h1>${PARAGRAPHS}`);
    const shown = headings(
      convertPage(html, 'https://example.com/engine', { view: 'article', bodyOnly: true }).markdown,
    );
    expect(shown.map((line) => line.replace(/^#+ /, ''))).toEqual(['Notes on the Engine']);
  });

  it('MD-1 site names come off either end, only at a separator', () => {
    expect(withoutSiteName('Title | Site', 'Site')).toBe('Title');
    expect(withoutSiteName('Site - Title', 'Site')).toBe('Title');
    expect(withoutSiteName('Site', 'Site')).toBe('Site');
    expect(withoutSiteName('Sitework explained', 'Site')).toBe('Sitework explained');
    expect(withoutSiteName('Title | Site', null)).toBe('Title | Site');
  });
});
