import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BuildInfoSchema, canonicalBuildList } from '../../../lib/protocol/buildDigest';
import { BUILD_INFO_FILE, createAppBuildHandler } from '../../../server/rpc/appBuildHandler';
import { REPO_ROOT } from '../../../server/runtime/paths';

const OUT = path.join(REPO_ROOT, 'out');

function servedFiles(dir: string, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.')) return [];
    const rel = `${prefix}/${entry.name}`;
    return entry.isDirectory() ? servedFiles(path.join(dir, entry.name), rel) : [rel];
  });
}

describe('RLY-5 the build names every file it serves', () => {
  const info = BuildInfoSchema.parse(JSON.parse(fs.readFileSync(BUILD_INFO_FILE, 'utf8')));

  it('RLY-5 every served file but sw.js is listed with the SHA-256 of its bytes, and the digest is over that list', () => {
    const served = servedFiles(OUT).filter((file) => file !== '/sw.js');
    expect(Object.keys(info.files).sort()).toEqual(served.sort());
    for (const file of served)
      expect(info.files[file], file).toBe(
        crypto
          .createHash('sha256')
          .update(fs.readFileSync(path.join(OUT, file)))
          .digest('hex'),
      );
    expect(info.digest).toBe(crypto.createHash('sha256').update(canonicalBuildList(info.files)).digest('hex'));
  });

  it('RLY-5 sw.js embeds the same list (it computes the digest from it) and app.build answers the digest', () => {
    const worker = fs.readFileSync(path.join(OUT, 'sw.js'), 'utf8');
    for (const [file, sha] of Object.entries(info.files)) expect(worker, file).toContain(`"${file}":"${sha}"`);
    expect(createAppBuildHandler()['app.build']()).toEqual({ digest: info.digest });
  });

  it('RLY-5 a desktop with no build answers unavailable', () => {
    const missing = createAppBuildHandler(path.join(OUT, '.no-such-build.json'));
    expect(() => missing['app.build']()).toThrow(expect.objectContaining({ code: 'unavailable' }));
  });
});
