import { describe, expect, it } from 'vitest';
import { OUTSIDE_PROJECT, opensAsPreview, resolveProjectLink } from '../../../../lib/client/files/projectLinks';

describe('FILE-3 FILE-4 links in a project Markdown file resolve inside the project', () => {
  it.each([
    ['docs/guide.md', '../docs/setup.md', 'docs/setup.md'],
    ['docs/guide.md', 'setup.md', 'docs/setup.md'],
    ['docs/guide.md', './img/a.png', 'docs/img/a.png'],
    ['docs/guide.md', 'site/index.html#top', 'docs/site/index.html'],
    ['docs/guide.md', 'notes/a%20b.md?plain=1', 'docs/notes/a b.md'],
    ['docs/guide.md', '/README.md', 'README.md'],
    ['README.md', 'docs/../src/main.ts', 'src/main.ts'],
  ])('FILE-4 from %s, %s opens %s', (from, href, path) => {
    expect(resolveProjectLink(from, href)).toEqual({ kind: 'file', path });
  });

  it.each([
    ['docs/guide.md', '../../outside.md'],
    ['README.md', '../x.md'],
    ['docs/guide.md', '/../etc/passwd'],
    ['a/b/c.md', '../../../../d.md'],
  ])('FILE-3 from %s, %s climbs out of the project and is refused', (from, href) => {
    expect(resolveProjectLink(from, href)).toEqual({ kind: 'refused', reason: OUTSIDE_PROJECT });
  });

  it('SEC-3 http(s) stays external; other schemes, drive paths and scheme-relative addresses are refused; a bare fragment is an anchor', () => {
    expect(resolveProjectLink('a.md', 'https://example.com/x')).toEqual({
      kind: 'external',
      href: 'https://example.com/x',
    });
    for (const href of [
      'javascript:alert(1)',
      'file:///etc/passwd',
      '//evil.example/x',
      'C:\\Windows\\x.md',
      'a\\..\\..\\b',
    ]) {
      expect(resolveProjectLink('a.md', href).kind, href).toBe('refused');
    }
    expect(resolveProjectLink('a.md', '#usage')).toEqual({ kind: 'anchor' });
    expect(resolveProjectLink('a.md', '%E0%A4%A').kind).toBe('refused');
  });

  it('FILE-4 an HTML file opens as a preview, anything else in the file viewer', () => {
    expect(opensAsPreview('docs/site/index.html')).toBe(true);
    expect(opensAsPreview('page.HTM')).toBe(true);
    expect(opensAsPreview('docs/setup.md')).toBe(false);
  });
});
