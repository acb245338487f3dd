import { describe, expect, it } from 'vitest';
import { routeHost, type Origins } from '../../../server/http/hostRouting';
import { previewFrameSource, previewOriginOf } from '../../../server/http/previewOrigins';
import { parsePublicOrigins } from '../../../server/publicOrigins';
import { SecretFiles } from '../../../server/runtime/files/secretFiles';
import { chooseResourceRoot } from '../../../server/runtime/preview/resourceRoot';

const id = '0123456789abcdef0123456789abcdef';

describe('ORG-2 ORG-3 preview origins and Host routing', () => {
  const local: Origins = {
    app: new URL('http://hbcode.localhost:8787'),
    port: 8787,
    previews: { kind: 'per-preview', template: 'http://p-{id}.hbcode.localhost:8787' },
  };

  it('ORG-2 each preview is a same-site subdomain of the app host, and only those names route to it', () => {
    expect(previewOriginOf(local.previews, id)).toBe(`http://p-${id}.hbcode.localhost:8787`);
    expect(routeHost(`p-${id}.hbcode.localhost:8787`, local)).toEqual({ kind: 'preview', previewId: id });
    expect(routeHost(`P-${id.toUpperCase()}.hbcode.localhost:8787`, local)).toEqual({ kind: 'preview', previewId: id });
    for (const host of [
      `p-${id}.hbcode.localhost:9999`,
      `p-${id}x.hbcode.localhost:8787`,
      `p-${id}.evil.localhost:8787`,
      `x.p-${id}.hbcode.localhost:8787`,
    ]) {
      expect(routeHost(host, local), host).toEqual({ kind: 'unknown' });
    }
    expect(routeHost('hbcode.localhost:8787', local)).toEqual({ kind: 'app' });
    expect(previewFrameSource(local.previews)).toBe('http://*.hbcode.localhost:8787');
  });

  it('ORG-3 --public-url with --preview-origin-template: one origin per preview under the public name', () => {
    const parsed = parsePublicOrigins('https://code.example.org', 'https://p-{id}.code.example.org', undefined);
    const origins: Origins = { app: parsed.publicUrl!, port: 8787, previews: parsed.previewOrigins! };
    expect(previewOriginOf(origins.previews, id)).toBe(`https://p-${id}.code.example.org`);
    expect(routeHost(`p-${id}.code.example.org`, origins)).toEqual({ kind: 'preview', previewId: id });
    expect(routeHost('code.example.org', origins)).toEqual({ kind: 'app' });
    expect(previewFrameSource(origins.previews)).toBe('https://*.code.example.org');
  });

  it('ORG-3 --public-url with --preview-origin: one shared preview origin on another port', () => {
    const parsed = parsePublicOrigins('https://code.example.org', undefined, 'https://code.example.org:8443');
    const origins: Origins = { app: parsed.publicUrl!, port: 8787, previews: parsed.previewOrigins! };
    expect(previewOriginOf(origins.previews, id)).toBe('https://code.example.org:8443');
    expect(routeHost('code.example.org:8443', origins)).toEqual({ kind: 'preview', previewId: null });
    expect(routeHost('code.example.org', origins)).toEqual({ kind: 'app' });
  });

  it.each([
    [undefined, 'https://p-{id}.x.org', undefined, /need --public-url/],
    ['https://x.org', undefined, undefined, /needs --preview-origin-template or --preview-origin/],
    ['https://x.org', 'https://p-{id}.x.org', 'https://x.org:8443', /not both/],
    ['http://x.org', undefined, 'https://x.org:8443', /https/],
    ['https://x.org/app', undefined, 'https://x.org:8443', /origin only/],
    ['https://x.org', 'https://p.{id}.x.org', undefined, /first name label/],
    ['https://x.org', 'https://p-{id}.y.org', undefined, /same site/],
    ['https://x.org', undefined, 'https://x.org', /must differ/],
    ['https://x.org', undefined, 'https://y.org:8443', /same site/],
  ])(
    'ORG-3 refuses --public-url %s --preview-origin-template %s --preview-origin %s',
    (publicUrl, template, shared, message) => {
      expect(() => parsePublicOrigins(publicUrl, template, shared)).toThrow(message);
    },
  );
});

describe('PRV-1 resource roots', () => {
  it.each([
    [
      '/home/me/proj',
      '/home/me/proj/docs/a.html',
      '/home/me',
      { root: '/home/me/proj', documentSegments: ['docs', 'a.html'], documentOnly: false },
    ],
    [
      '/home/me',
      '/home/me/proj/docs/a.html',
      '/home/me',
      { root: '/home/me/proj/docs', documentSegments: ['a.html'], documentOnly: false },
    ],
    ['/home/me', '/home/me/a.html', '/home/me', { root: '/home/me', documentSegments: ['a.html'], documentOnly: true }],
    ['/home', '/home/a.html', '/home/me', { root: '/home', documentSegments: ['a.html'], documentOnly: true }],
    ['/', '/a.html', '/home/me', { root: '/', documentSegments: ['a.html'], documentOnly: true }],
    ['/', '/srv/site/a.html', '/home/me', { root: '/srv/site', documentSegments: ['a.html'], documentOnly: false }],
    [
      '/srv/other',
      '/srv/site/a.html',
      '/home/me',
      { root: '/srv/site', documentSegments: ['a.html'], documentOnly: false },
    ],
  ])('PRV-1 project %s, document %s, home %s', (project, document, home, expected) => {
    expect(chooseResourceRoot(project, document, home, new SecretFiles())).toEqual(expected);
  });
});
