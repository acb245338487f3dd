import { describe, expect, it } from 'vitest';
import { safeMarkdownUrl } from '../../../lib/links/safeLinks';

describe('SEC-3 links in rendered Markdown', () => {
  it.each([
    ['https://example.com/a', undefined, 'https://example.com/a'],
    ['HTTP://example.com', undefined, 'HTTP://example.com'],
    ['docs/guide.md', undefined, 'docs/guide.md'],
    ['#section', undefined, '#section'],
    ['../up.md', 'https://example.com/a/b/page', 'https://example.com/a/up.md'],
    ['/root', 'https://example.com/a/b', 'https://example.com/root'],
  ])('SEC-3 keeps %s (base %s)', (url, base, expected) => {
    expect(safeMarkdownUrl(url, base)).toBe(expected);
  });

  it.each([
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    'data:text/html,<script>1</script>',
    'file:///etc/passwd',
    'vbscript:x',
    'mailto:a@b.c',
    '//evil.example/x',
    '',
  ])('SEC-3 drops %j', (url) => {
    expect(safeMarkdownUrl(url)).toBeNull();
    expect(safeMarkdownUrl(url, 'https://example.com/page')).toBeNull();
  });
});
