import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ClaudeResultCache,
  type FetchResultRange,
  type ResultCacheLimits,
} from '../../../../server/runtime/agents/claude/claudeResultCache';
import { sourceOf, transcriptSources } from '../../../../server/runtime/agents/claude/resultSources';
import type { ResultSource } from '../../../../server/runtime/agents/claude/hostProtocol';

const SLICE = 256 * 1024;
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) fs.rmSync(dirs.pop()!, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-result-cache-'));
  dirs.push(dir);
  return dir;
}

/**
 * A host stand-in: answers ranges of what its saved files hold now, with their stamps as the host
 * takes them, and counts every answer. A result whose transcript is gone is missing.
 */
function savedResult(result: Buffer, options: { persisted?: boolean; named?: boolean } = {}) {
  const dir = tempDir();
  const transcript = path.join(dir, 'session.jsonl');
  fs.writeFileSync(transcript, '{"type":"user"}\n');
  const persisted = options.persisted ? path.join(dir, 'result.txt') : null;
  if (persisted) fs.writeFileSync(persisted, result);
  let bytes = result;
  const host = {
    transcript,
    persisted,
    calls: 0,
    /** What the saved files hold from now on (a rewritten result). */
    rewrite(next: Buffer) {
      bytes = next;
      if (persisted) fs.writeFileSync(persisted, next);
    },
    fetch: (async (offset, length) => {
      host.calls += 1;
      const sources = [sourceOf(transcript, true), ...(persisted ? [sourceOf(persisted, false)] : [])];
      if (sources.some((s) => s === null)) throw new Error('missing');
      return {
        bytes: Buffer.from(bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length))),
        availableBytes: bytes.length,
        sources: options.named === false ? null : (sources as ResultSource[]),
      };
    }) as FetchResultRange,
  };
  return host;
}

/** Reads every slice of `expected` from the cache, in order, and checks each byte. */
async function readAll(
  cache: ClaudeResultCache,
  key: string,
  fetch: FetchResultRange,
  expected: Buffer,
): Promise<void> {
  for (let offset = 0; offset < expected.length; offset += SLICE) {
    const slice = await cache.slice(key, offset, SLICE, fetch);
    expect(slice.availableBytes).toBe(expected.length);
    expect(slice.bytes.equals(expected.subarray(offset, offset + SLICE))).toBe(true);
  }
}

const limits = (over: Partial<ResultCacheLimits> = {}): Partial<ResultCacheLimits> => ({
  pieceBytes: 1024 * 1024,
  ...over,
});

describe('Claude Bash results kept whole in the runtime (OUT-7)', () => {
  it('OUT-7 the first slice comes from the host, which is then asked for the whole result once in pieces; every later slice is cut here, byte for byte', async () => {
    const result = crypto.randomBytes(3 * 1024 * 1024 + 777);
    const host = savedResult(result, { persisted: true });
    const cache = new ClaudeResultCache(limits());
    const first = await cache.slice('r', 1_000_000, SLICE, host.fetch);
    expect(first.bytes.equals(result.subarray(1_000_000, 1_000_000 + SLICE))).toBe(true);
    await readAll(cache, 'r', host.fetch, result);
    // One slice, then 4 pieces of 1 MiB for 3 MiB and 777 bytes; none for the slices read after.
    expect(host.calls).toBe(1 + 4);
    expect(cache.totalBytes).toBe(result.length);
    // A slice past the end, and one that ends it.
    expect((await cache.slice('r', result.length + 10, SLICE, host.fetch)).bytes.length).toBe(0);
    expect((await cache.slice('r', result.length - 5, SLICE, host.fetch)).bytes.equals(result.subarray(-5))).toBe(true);
    expect(host.calls).toBe(5);
  });

  it('OUT-7 an empty result is kept too', async () => {
    const host = savedResult(Buffer.alloc(0));
    const cache = new ClaudeResultCache(limits());
    expect((await cache.slice('r', 0, SLICE, host.fetch)).availableBytes).toBe(0);
    expect((await cache.slice('r', 0, SLICE, host.fetch)).bytes.length).toBe(0);
    expect(host.calls).toBe(1);
  });

  it('OUT-7 a result larger than maxResultBytes keeps paging through the host and takes no room', async () => {
    const result = crypto.randomBytes(3 * SLICE + 5);
    const host = savedResult(result);
    const cache = new ClaudeResultCache(limits({ maxResultBytes: 3 * SLICE }));
    await readAll(cache, 'r', host.fetch, result);
    await readAll(cache, 'r', host.fetch, result);
    expect(host.calls).toBe(8);
    expect(cache.totalBytes).toBe(0);
  });

  it('OUT-7 a result whose files the host did not name is never kept', async () => {
    const result = crypto.randomBytes(1000);
    const host = savedResult(result, { named: false });
    const cache = new ClaudeResultCache(limits());
    await readAll(cache, 'r', host.fetch, result);
    await readAll(cache, 'r', host.fetch, result);
    expect(host.calls).toBe(2);
    expect(cache.totalBytes).toBe(0);
  });

  it('OUT-7 the kept results stay under maxTotalBytes: the least lately read goes first', async () => {
    const results = [0, 1, 2].map(() => crypto.randomBytes(40_000));
    const hosts = results.map((r) => savedResult(r));
    const cache = new ClaudeResultCache(limits({ maxTotalBytes: 100_000 }));
    const read = async (i: number) => readAll(cache, `r${i}`, hosts[i]!.fetch, results[i]!);
    await read(0);
    await read(1);
    await read(0); // r0 kept: now read more lately than r1
    expect(cache.totalBytes).toBe(80_000);
    expect(hosts.map((h) => h.calls)).toEqual([2, 2, 0]);
    await read(2);
    await read(2); // kept; r1 went to make room
    expect(cache.totalBytes).toBe(80_000);
    await read(0);
    expect(hosts.map((h) => h.calls)).toEqual([2, 2, 2]);
    // r1 was let go: the host answers its slice and is asked for it whole again.
    await read(1);
    expect(hosts[1]!.calls).toBe(4);
    expect(cache.totalBytes).toBeLessThanOrEqual(100_000);
  });

  it('OUT-7 a kept result holds while its transcript only grows; a transcript replaced, cut short or gone makes the next read go to the host', async () => {
    const result = crypto.randomBytes(50_000);
    const host = savedResult(result);
    const cache = new ClaudeResultCache(limits());
    await readAll(cache, 'r', host.fetch, result);
    await readAll(cache, 'r', host.fetch, result);
    expect(host.calls).toBe(2);
    // The conversation goes on: Claude appends to its transcript.
    fs.appendFileSync(host.transcript, '{"type":"assistant"}\n');
    await readAll(cache, 'r', host.fetch, result);
    expect(host.calls).toBe(2);
    // The transcript is written anew (another file in its place) and the result with it.
    const changed = crypto.randomBytes(50_000);
    host.rewrite(changed);
    fs.writeFileSync(`${host.transcript}.new`, '{"type":"user"}\n{"type":"assistant"}\n');
    fs.renameSync(`${host.transcript}.new`, host.transcript);
    await readAll(cache, 'r', host.fetch, changed);
    await readAll(cache, 'r', host.fetch, changed);
    expect(host.calls).toBe(4);
    // Cut short in place.
    fs.truncateSync(host.transcript, 5);
    await readAll(cache, 'r', host.fetch, changed);
    expect(host.calls).toBe(6);
    // Gone: the host says so, and nothing is answered from the copy.
    fs.rmSync(host.transcript);
    await expect(cache.slice('r', 0, 10, host.fetch)).rejects.toThrow('missing');
    expect(host.calls).toBe(7);
  });

  it('OUT-7 a persisted result file that changed or went makes the next read go to the host', async () => {
    const result = crypto.randomBytes(50_000);
    const host = savedResult(result, { persisted: true });
    const cache = new ClaudeResultCache(limits());
    await readAll(cache, 'r', host.fetch, result);
    expect(host.calls).toBe(2);
    const changed = crypto.randomBytes(50_001);
    host.rewrite(changed);
    await readAll(cache, 'r', host.fetch, changed);
    await readAll(cache, 'r', host.fetch, changed);
    expect(host.calls).toBe(4);
    fs.rmSync(host.persisted!);
    await expect(cache.slice('r', 0, 10, host.fetch)).rejects.toThrow('missing');
  });

  it('OUT-7 a result that changes while it is fetched whole is not kept', async () => {
    const result = crypto.randomBytes(3 * 1024 * 1024);
    const host = savedResult(result, { persisted: true });
    const cache = new ClaudeResultCache(limits());
    let pieces = 0;
    const fetch: FetchResultRange = async (offset, length) => {
      if (pieces++ === 2) host.rewrite(crypto.randomBytes(result.length));
      return host.fetch(offset, length);
    };
    await cache.slice('r', 0, SLICE, fetch);
    await cache.slice('r', 0, SLICE, fetch);
    expect(cache.totalBytes).toBe(0);
  });

  it('OUT-7 slices asked while the whole result is fetched wait for it instead of asking the host again', async () => {
    const result = crypto.randomBytes(2 * 1024 * 1024);
    const host = savedResult(result);
    const cache = new ClaudeResultCache(limits());
    await cache.slice('r', 0, SLICE, host.fetch);
    const slices = await Promise.all([1, 2, 3].map((i) => cache.slice('r', i * SLICE, SLICE, host.fetch)));
    slices.forEach((slice, i) =>
      expect(slice.bytes.equals(result.subarray((i + 1) * SLICE, (i + 2) * SLICE))).toBe(true),
    );
    expect(host.calls).toBe(1 + 2);
  });

  it('OUT-7 the host names every transcript of the conversation under the projects folder', () => {
    const projects = tempDir();
    fs.mkdirSync(path.join(projects, '-one'));
    fs.mkdirSync(path.join(projects, '-two'));
    fs.writeFileSync(path.join(projects, '-two', 'abc.jsonl'), 'x\n');
    fs.writeFileSync(path.join(projects, '-one', 'other.jsonl'), 'x\n');
    expect(transcriptSources(projects, 'abc')).toEqual([
      expect.objectContaining({ path: path.join(projects, '-two', 'abc.jsonl'), size: 2, grows: true }),
    ]);
    expect(transcriptSources(path.join(projects, 'absent'), 'abc')).toEqual([]);
  });
});
