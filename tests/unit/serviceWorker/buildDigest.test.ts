import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  buildDigest,
  BuildFilesSchema,
  canonicalBuildList,
  integrityOf,
  sha256Hex,
  shortDigest,
  type BuildFiles,
} from '../../../lib/protocol/buildDigest';

const sha = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
const FILES = { '/index.html': sha('<html>'), '/_next/static/a.js': sha('a'), '/icons/icon-192.png': sha('png') };

describe('RLY-5 the build digest', () => {
  it('RLY-5 the canonical list is one sha256sum line per file, sorted by path, whatever order the files were named in', () => {
    const reversed = Object.fromEntries(Object.entries(FILES).reverse());
    const expected = `${FILES['/_next/static/a.js']}  /_next/static/a.js\n${FILES['/icons/icon-192.png']}  /icons/icon-192.png\n${FILES['/index.html']}  /index.html\n`;
    expect(canonicalBuildList(FILES)).toBe(expected);
    expect(canonicalBuildList(reversed)).toBe(expected);
  });

  it('RLY-5 the digest is the SHA-256 of the canonical list, computed here by node:crypto independently', async () => {
    expect(await buildDigest(FILES)).toBe(sha(canonicalBuildList(FILES)));
    expect(await sha256Hex(new TextEncoder().encode('abc'))).toBe(sha('abc'));
  });

  it('RLY-5 changing one byte of one file, renaming a file, adding or dropping one each give another digest', async () => {
    const base = await buildDigest(FILES);
    const variants: BuildFiles[] = [
      { ...FILES, '/_next/static/a.js': sha('a ') },
      {
        '/index.html': FILES['/index.html'],
        '/_next/static/b.js': FILES['/_next/static/a.js'],
        '/icons/icon-192.png': FILES['/icons/icon-192.png'],
      },
      { ...FILES, '/extra.js': sha('extra') },
      { '/index.html': FILES['/index.html'], '/icons/icon-192.png': FILES['/icons/icon-192.png'] },
    ];
    const digests = await Promise.all(variants.map(buildDigest));
    for (const digest of digests) expect(digest).not.toBe(base);
    expect(new Set(digests).size).toBe(variants.length);
  });

  it('RLY-5 the SRI value is sha256- and the base64 of the same digest', () => {
    const hex = sha('a');
    expect(integrityOf(hex)).toBe(`sha256-${crypto.createHash('sha256').update('a').digest('base64')}`);
    expect(shortDigest(hex)).toBe(hex.slice(0, 12));
  });

  it('RLY-5 a list whose path could forge another line of the canonical text is refused', () => {
    expect(BuildFilesSchema.safeParse(FILES).success).toBe(true);
    expect(BuildFilesSchema.safeParse({ [`/a.js\n${sha('x')}  /b.js`]: sha('a') }).success).toBe(false);
    expect(BuildFilesSchema.safeParse({ '/a b.js': sha('a') }).success).toBe(false);
    expect(BuildFilesSchema.safeParse({ 'a.js': sha('a') }).success).toBe(false);
    expect(BuildFilesSchema.safeParse({ '/a.js': 'A'.repeat(64) }).success).toBe(false);
  });
});
