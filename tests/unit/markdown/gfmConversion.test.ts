import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertPage } from '../../../lib/markdown/convertPage';
import { REPO_ROOT } from '../../../server/runtime/paths';

// MD-1 GFM conversions against stored fixtures: tests/fixtures/markdown-gfm/NAME.html is the
// input (a page body), NAME.md the Markdown expected from it, byte for byte.

const FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'markdown-gfm');
const PAGE_URL = 'https://example.com/blog/post.html';

function converted(name: string): { actual: string; expected: string } {
  const body = fs.readFileSync(path.join(FIXTURES, `${name}.html`), 'utf8');
  const html = `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;
  return {
    actual: convertPage(html, PAGE_URL, { view: 'fullPage', bodyOnly: true }).markdown,
    expected: fs.readFileSync(path.join(FIXTURES, `${name}.md`), 'utf8'),
  };
}

describe('MD-1 GFM conversion fixtures', () => {
  it('MD-1 every stored input has its expected Markdown', () => {
    const names = fs
      .readdirSync(FIXTURES)
      .filter((n) => n.endsWith('.html'))
      .map((n) => n.slice(0, -'.html'.length));
    expect(names.sort()).toEqual([
      'code-language',
      'images',
      'links',
      'nested-lists',
      'strikethrough',
      'table',
      'task-list',
    ]);
  });

  it.each([
    ['tables: a header row, escaped pipes, merged cells, a table without th, the caption above', 'table'],
    ['nested lists: bullets in bullets, numbers in bullets, a start number', 'nested-lists'],
    [
      'fenced code with the language from language-x, lang-x and highlight-source-x; a longer fence when the code has backticks',
      'code-language',
    ],
    ['task lists: checked and unchecked', 'task-list'],
    ['images keep alt text and title, absolute against the page; data: and javascript: sources are dropped', 'images'],
    ['links keep titles and become absolute; anchors stay; javascript: links lose their target', 'links'],
    ['strikethrough from del, s and strike', 'strikethrough'],
  ])('MD-1 %s', (_what, name) => {
    const { actual, expected } = converted(name);
    expect(actual).toBe(expected);
  });

  it('MD-1 the title header carries title, byline, site, published day and source', () => {
    const html = `<!doctype html><html><head><title>Fallback title</title>
      <meta property="og:site_name" content="Example Site"><meta name="author" content="Ada Lovelace">
      <meta property="article:published_time" content="2024-05-06T07:08:09Z"></head>
      <body><article><h1>Notes on the Engine</h1>${'<p>The analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves, and it might act upon other things besides number.</p>'.repeat(6)}</article></body></html>`;
    const page = convertPage(html, 'https://example.com/engine');
    expect(page.view).toBe('article');
    expect(
      page.markdown.startsWith(
        '# Notes on the Engine\n\nAda Lovelace · Example Site · 2024-05-06\n\nSource: <https://example.com/engine>\n\n---\n\n',
      ),
    ).toBe(true);
    expect(page).toMatchObject({
      byline: 'Ada Lovelace',
      siteName: 'Example Site',
      publishedTime: '2024-05-06T07:08:09Z',
      sourceUrl: 'https://example.com/engine',
    });
  });
});
