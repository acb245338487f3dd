import { describe, expect, it } from 'vitest';
import { parseRoute, routeHash, type AppRoute } from '../../../lib/client/appRoute';

describe('PWA-5 app routes in the location hash', () => {
  const routes: AppRoute[] = [
    { kind: 'sessions' },
    { kind: 'files', projectDirectory: null, path: '' },
    { kind: 'files', projectDirectory: '/home/me/shop', path: 'src/a b&c.ts' },
    { kind: 'preview', projectDirectory: '/home/me/shop', path: 'site/index.html' },
    { kind: 'git', projectDirectory: '/home/me/shop & co' },
    { kind: 'reader', url: 'https://example.com/a?b=1&c=#frag' },
    { kind: 'accounts' },
  ];
  it.each(routes)('round-trips %o', (route) => {
    expect(parseRoute(routeHash(route))).toEqual(route);
  });
  it('falls back to the sessions for unknown or incomplete hashes', () => {
    expect(parseRoute('')).toEqual({ kind: 'sessions' });
    expect(parseRoute('#/nowhere')).toEqual({ kind: 'sessions' });
    expect(parseRoute('#/preview?dir=/x')).toEqual({ kind: 'sessions' });
    expect(parseRoute('#/read')).toEqual({ kind: 'sessions' });
    expect(parseRoute('#/git')).toEqual({ kind: 'sessions' });
    expect(parseRoute('#/git?dir=/x&path=a')).toEqual({ kind: 'sessions' });
  });
});
