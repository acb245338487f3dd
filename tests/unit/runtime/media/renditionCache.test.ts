import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RenditionCache } from '../../../../server/runtime/media/renditionCache';
import { TranscodeSlots } from '../../../../server/runtime/media/transcodeSlots';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

function tempFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-renditions-'));
  folders.push(folder);
  return path.join(folder, 'media-renditions');
}

/** Adds a rendition of `bytes` bytes under `key` the way the runtime does (a part file moved in). */
function addRendition(cache: RenditionCache, key: string, bytes: number) {
  const part = cache.partPath(key);
  fs.writeFileSync(part, Buffer.alloc(bytes, 1));
  return cache.add(key, part, 'webp');
}

const key = (name: string) => RenditionCache.keyOf([name]);

describe('FILE-11 the rendition cache stays within its bytes, the least recently read going first', () => {
  it('FILE-11 past the bound the least recently read rendition is removed, never the one just made', () => {
    const cache = new RenditionCache(tempFolder(), 250);
    addRendition(cache, key('a'), 100);
    addRendition(cache, key('b'), 100);
    expect(cache.get(key('a'))).not.toBeNull(); // a is now the most recently read
    const c = addRendition(cache, key('c'), 100);
    expect(cache.get(key('b'))).toBeNull();
    expect(cache.get(key('a'))).not.toBeNull();
    expect(cache.get(key('c'))).toEqual(c);
    const huge = addRendition(cache, key('d'), 400);
    expect(cache.get(key('d'))).toEqual(huge);
    expect(cache.get(key('a'))).toBeNull();
    expect(cache.get(key('c'))).toBeNull();
  });

  it('FILE-11 a new start keeps what an earlier run made and removes its unfinished part files', () => {
    const folder = tempFolder();
    const first = new RenditionCache(folder, 1000);
    addRendition(first, key('kept'), 10);
    fs.writeFileSync(first.partPath(key('unfinished')), 'half');
    const second = new RenditionCache(folder, 1000);
    expect(second.get(key('kept'))?.size).toBe(10);
    expect(fs.readdirSync(folder).filter((name) => name.endsWith('.part'))).toEqual([]);
  });
});

describe('FILE-11 transcode slots', () => {
  it('FILE-11 at most `size` jobs run at once and the waiting ones start in order', async () => {
    const slots = new TranscodeSlots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const jobs = [0, 1, 2, 3].map((n) =>
      slots.run(async () => {
        started.push(n);
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        return n;
      }),
    );
    const releaseNext = async () => {
      while (releases.length === 0) await Promise.resolve();
      releases.shift()!();
    };
    for (let i = 0; i < 4; i++) await releaseNext();
    expect(await Promise.all(jobs)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(most).toBe(2);
  });
});
