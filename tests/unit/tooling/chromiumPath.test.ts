import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChromium } from '../../fixtures/chromiumPath';
import { makeTempDir } from '../../fixtures/tempDir';

function fakeBinary(folder: string, name: string, mode = 0o755): string {
  const file = path.join(folder, name);
  fs.writeFileSync(file, '#!/bin/sh\n');
  fs.chmodSync(file, mode);
  return file;
}

describe('finding the Chromium the browser tests drive', () => {
  it('HBCODE_CHROMIUM wins, and a wrong one is reported missing rather than replaced', () => {
    const dir = makeTempDir();
    const chosen = fakeBinary(dir, 'my-chromium');
    const debian = fakeBinary(dir, 'debian-chromium');
    expect(findChromium({ HBCODE_CHROMIUM: chosen }, debian)).toBe(chosen);
    expect(findChromium({ HBCODE_CHROMIUM: path.join(dir, 'gone') }, debian)).toBeNull();
  });

  it("Debian's Chromium, else the first Chromium or Chrome on PATH that can run", () => {
    const dir = makeTempDir();
    const [first, second] = [path.join(dir, 'a'), path.join(dir, 'b')];
    fs.mkdirSync(first);
    fs.mkdirSync(second);
    fakeBinary(first, 'chromium', 0o644);
    const found = fakeBinary(second, 'chromium');
    const debian = fakeBinary(dir, 'debian-chromium');
    expect(findChromium({ PATH: `${first}:${second}` }, debian)).toBe(debian);
    expect(findChromium({ PATH: `${first}:${second}` }, path.join(dir, 'no-debian'))).toBe(found);
  });

  it('none at all is null (the global setup then stops the run with one line)', () => {
    const dir = makeTempDir();
    expect(findChromium({ PATH: dir }, path.join(dir, 'no-debian'))).toBeNull();
  });
});
