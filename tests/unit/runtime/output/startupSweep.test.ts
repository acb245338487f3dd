import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OutputKey } from '../../../../server/runtime/output/catalog';
import { sweepOutputFolder, UNKNOWN_FILE_GRACE_MS } from '../../../../server/runtime/output/startupSweep';
import { append, openOutputStore, patternBytes, sha256 } from '../../../fixtures/outputStoreFixture';

const HOUR_MS = 60 * 60 * 1000;
const keyA: OutputKey = { runId: 'run-1', commandId: 'a' };
const keyB: OutputKey = { runId: 'run-1', commandId: 'b' };
const keyC: OutputKey = { runId: 'run-2', commandId: 'c' };

/** Sets a file's modification (and access) time to `ms` since the epoch. */
function age(file: string, ms: number): void {
  fs.utimesSync(file, ms / 1000, ms / 1000);
}

function writeAt(file: string, bytes: Buffer, offset: number): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    fs.closeSync(fd);
  }
}

describe('sweepOutputFolder (OUT-6)', () => {
  it('OUT-6 the grace period for unknown files is one hour', () => {
    expect(UNKNOWN_FILE_GRACE_MS).toBe(HOUR_MS);
  });

  it('OUT-6 abandoned stage files are removed, fresh or old', () => {
    const fx = openOutputStore();
    fx.store.create(keyA, fx.sessionId);
    const fresh = path.join(fx.store.dir, '0123456789abcdef0123456789abcdef.output.stage');
    const old = path.join(fx.store.dir, 'fedcba9876543210fedcba9876543210.output.stage');
    fs.writeFileSync(fresh, 'half an aggregate');
    fs.writeFileSync(old, 'another');
    age(old, Date.now() - 3 * HOUR_MS);

    const known = fx.fileOf(keyA);
    const report = sweepOutputFolder(fx.reopen().store);
    expect(report.stageFilesRemoved).toBe(2);
    expect(fs.existsSync(fresh)).toBe(false);
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(known)).toBe(true);
  });

  it('OUT-6 every pending append is recovered at start-up (OUT-2)', () => {
    const before = openOutputStore();
    const prefix = Buffer.from('committed\n');
    for (const key of [keyA, keyB, keyC]) {
      before.store.create(key, before.sessionId);
      expect(append(before.store, key, prefix)).toBe(true);
    }
    // A: the bytes were written, the commit was not. B: the write was torn. C: no pending row, stray bytes.
    const deltaA = patternBytes(300, 1);
    before.store.catalog.insertPending(keyA, prefix.length, deltaA.length, 1, sha256(deltaA));
    writeAt(before.fileOf(keyA), deltaA, prefix.length);
    const deltaB = patternBytes(300, 2);
    before.store.catalog.insertPending(keyB, prefix.length, deltaB.length, 1, sha256(deltaB));
    writeAt(before.fileOf(keyB), deltaB.subarray(0, 100), prefix.length);
    writeAt(before.fileOf(keyC), Buffer.from('stray'), prefix.length);
    expect(before.pendingCount()).toBe(2);

    const after = before.reopen();
    const report = sweepOutputFolder(after.store);
    expect(report.recovered).toEqual({ committed: 1, 'torn-cut': 1, 'unexplained-tail-cut': 1 });
    expect(after.pendingCount()).toBe(0);
    expect(fs.readFileSync(after.fileOf(keyA)).equals(Buffer.concat([prefix, deltaA]))).toBe(true);
    expect(after.store.state(keyA)!.byteLength).toBe(prefix.length + deltaA.length);
    expect(fs.readFileSync(after.fileOf(keyB)).equals(prefix)).toBe(true);
    expect(after.store.state(keyB)!.byteLength).toBe(prefix.length);
    expect(fs.readFileSync(after.fileOf(keyC)).equals(prefix)).toBe(true);
    expect(report.unknownFilesRemoved).toBe(0);
  });

  it('OUT-6 a start-up with nothing to recover reports nothing and changes nothing', () => {
    const fx = openOutputStore();
    fx.store.create(keyA, fx.sessionId);
    expect(append(fx.store, keyA, Buffer.from('x'))).toBe(true);
    const file = fx.fileOf(keyA);
    const report = sweepOutputFolder(fx.reopen().store);
    expect(report).toEqual({ stageFilesRemoved: 0, unknownFilesRemoved: 0, recovered: {} });
    expect(fs.readFileSync(file).toString()).toBe('x');
  });

  it('OUT-6 files no catalog row names are removed only once older than 1 hour; known files always stay', () => {
    const fx = openOutputStore();
    fx.store.create(keyA, fx.sessionId);
    fx.store.create(keyB, fx.sessionId);
    expect(append(fx.store, keyA, Buffer.from('known and old'))).toBe(true);
    const knownOld = fx.fileOf(keyA);
    const knownNew = fx.fileOf(keyB);
    const now = Date.now();
    age(knownOld, now - 5 * HOUR_MS);

    const unknownNew = path.join(fx.store.dir, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.output');
    const unknownOld = path.join(fx.store.dir, 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.output');
    const unknownOtherName = path.join(fx.store.dir, 'notes.txt');
    for (const file of [unknownNew, unknownOld, unknownOtherName]) fs.writeFileSync(file, 'orphan');
    age(unknownNew, now - 10 * 60 * 1000);
    age(unknownOld, now - 2 * HOUR_MS);
    age(unknownOtherName, now - 2 * HOUR_MS);
    const subfolder = path.join(fx.store.dir, 'some-folder');
    fs.mkdirSync(subfolder);

    const report = sweepOutputFolder(fx.reopen().store, now);
    expect(report.unknownFilesRemoved).toBe(2);
    expect(fs.existsSync(unknownOld)).toBe(false);
    expect(fs.existsSync(unknownOtherName)).toBe(false);
    expect(fs.existsSync(unknownNew)).toBe(true);
    expect(fs.existsSync(subfolder)).toBe(true);
    expect(fs.readFileSync(knownOld).toString()).toBe('known and old');
    expect(fs.existsSync(knownNew)).toBe(true);
  });

  it('OUT-6 an unknown file exactly 1 hour old stays; one second older goes', () => {
    const fx = openOutputStore();
    const orphan = path.join(fx.store.dir, 'cccccccccccccccccccccccccccccccc.output');
    fs.writeFileSync(orphan, 'orphan');
    const mtime = 1_700_000_000_000;
    age(orphan, mtime);
    expect(fs.statSync(orphan).mtimeMs).toBe(mtime);

    expect(sweepOutputFolder(fx.store, mtime + HOUR_MS).unknownFilesRemoved).toBe(0);
    expect(fs.existsSync(orphan)).toBe(true);
    expect(sweepOutputFolder(fx.store, mtime + HOUR_MS + 1000).unknownFilesRemoved).toBe(1);
    expect(fs.existsSync(orphan)).toBe(false);
  });

  it('OUT-6 the file a replaced generation left behind is an unknown file; the current generation is kept', () => {
    const fx = openOutputStore();
    fx.store.create(keyA, fx.sessionId);
    expect(append(fx.store, keyA, Buffer.from('stream bytes'))).toBe(true);
    const generation1 = fx.fileOf(keyA);
    // Keep a copy of generation 1's file as if its removal after the replace had been lost.
    const leftover = fs.readFileSync(generation1);
    const aggregate = Buffer.from('aggregate bytes');
    fx.store.settleCompletedCommand(keyA, { bytes: 12, deltas: 1 }, aggregate);
    expect(fx.store.state(keyA)!.generation).toBe(2);
    fs.writeFileSync(generation1, leftover);
    const now = Date.now();
    age(generation1, now - 2 * HOUR_MS);
    age(fx.fileOf(keyA), now - 2 * HOUR_MS);

    const after = fx.reopen();
    const report = sweepOutputFolder(after.store, now);
    expect(report.unknownFilesRemoved).toBe(1);
    expect(fs.existsSync(generation1)).toBe(false);
    expect(after.store.readOutputRange(after.sessionId, keyA, 2, 0, 100).bytes.equals(aggregate)).toBe(true);
  });
});
