import { describe, expect, it } from 'vitest';
import { decideHtmlMessage } from '../../../../lib/client/preview/htmlMessages';
import { PreviewHistory } from '../../../../lib/client/preview/previewHistory';

const origin = 'http://p-0123456789abcdef0123456789abcdef.hbcode.localhost:8787';
const open = (href: string) => ({ type: 'hbcode.html.open' as const, href });

describe('PRV-6 what the app does with a previewed page message', () => {
  it.each([
    [open(`${origin}/docs/b.html`), { kind: 'preview', path: '/docs/b.html', navigate: true }],
    [open(`${origin}/docs/b.html?x=1#top`), { kind: 'preview', path: '/docs/b.html?x=1', navigate: true }],
    [
      { type: 'hbcode.html.ready' as const, href: `${origin}/docs/c.html` },
      { kind: 'preview', path: '/docs/c.html', navigate: false },
    ],
    [open('https://example.org/a'), { kind: 'web', url: 'https://example.org/a' }],
    [open('http://example.org/a'), { kind: 'web', url: 'http://example.org/a' }],
    [{ type: 'hbcode.html.ready' as const, href: 'https://example.org/a' }, { kind: 'ignore' }],
    [open(`${origin}/src%2f..%2f..%2fsecret`), { kind: 'ignore' }],
    [open(`${origin}/a%5cb`), { kind: 'ignore' }],
    [open(`${origin}//evil.example/a`), { kind: 'ignore' }],
    [open('javascript:alert(1)'), { kind: 'ignore' }],
    [open('data:text/html,hi'), { kind: 'ignore' }],
    [open('file:///etc/passwd'), { kind: 'ignore' }],
    [open('blob:http://x/1'), { kind: 'ignore' }],
    [open('not a url'), { kind: 'ignore' }],
  ])('PRV-6 %j → %j', (message, action) => {
    expect(decideHtmlMessage(message, { origin, pathPrefix: '/' })).toEqual(action);
  });

  it('PRV-6 on a shared origin only paths of this preview count', () => {
    const prefix = '/p-0123456789abcdef0123456789abcdef/';
    expect(decideHtmlMessage(open(`${origin}${prefix}a.html`), { origin, pathPrefix: prefix })).toMatchObject({
      kind: 'preview',
      path: `${prefix}a.html`,
    });
    expect(
      decideHtmlMessage(open(`${origin}/p-ffffffffffffffffffffffffffffffff/a.html`), { origin, pathPrefix: prefix }),
    ).toEqual({ kind: 'ignore' });
  });

  it('PRV-6 the preview history goes back and forward and drops forward entries on a new page', () => {
    const history = new PreviewHistory('/a.html');
    expect(history.canGoBack).toBe(false);
    history.push('/b.html');
    history.push('/b.html');
    history.push('/c.html');
    expect(history.back()).toBe('/b.html');
    expect(history.back()).toBe('/a.html');
    expect(history.back()).toBeNull();
    expect(history.forward()).toBe('/b.html');
    history.push('/d.html');
    expect(history.canGoForward).toBe(false);
    expect(history.back()).toBe('/b.html');
    expect(history.current).toBe('/b.html');
  });
});
