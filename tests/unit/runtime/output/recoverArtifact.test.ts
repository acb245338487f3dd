import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OutputKey } from '../../../../server/runtime/output/catalog';
import { recoverArtifact, STORAGE_FAILED_MESSAGE } from '../../../../server/runtime/output/recoverArtifact';
import {
  append,
  openOutputStore,
  patternBytes,
  sha256,
  type OutputStoreFixture,
} from '../../../fixtures/outputStoreFixture';

const key: OutputKey = { runId: 'run-1', commandId: 'cmd-1' };

/**
 * A command with 1000 committed bytes (two real appends), and the next delta of 500 bytes that
 * the "crash" interrupts. Each test stops the write-ahead append at one point by doing its steps
 * by hand, then restarts (a new database connection) and runs recovery.
 */
function crashScenario() {
  const before = openOutputStore();
  before.store.create(key, before.sessionId);
  const prefix = patternBytes(1000, 1);
  expect(append(before.store, key, prefix.subarray(0, 600))).toBe(true);
  expect(append(before.store, key, prefix.subarray(600))).toBe(true);
  const file = before.fileOf(key);
  const delta = patternBytes(500, 2);
  const writePendingRow = () => before.store.catalog.insertPending(key, prefix.length, delta.length, 1, sha256(delta));
  const writeBytes = (bytes: Buffer) => {
    const fd = fs.openSync(file, 'r+');
    try {
      fs.writeSync(fd, bytes, 0, bytes.length, prefix.length);
    } finally {
      fs.closeSync(fd);
    }
  };
  const restartAndRecover = () => {
    const after = before.reopen();
    const result = recoverArtifact(after.store.catalog, after.store.dir, key);
    return { after, result: result! };
  };
  return { before, file, prefix, delta, writePendingRow, writeBytes, restartAndRecover };
}

function expectFileIs(file: string, expected: Buffer): void {
  const actual = fs.readFileSync(file);
  expect(actual.length).toBe(expected.length);
  expect(actual.equals(expected)).toBe(true);
}

function expectNoPending(fx: OutputStoreFixture): void {
  expect(fx.store.catalog.pending(key)).toEqual([]);
  expect(fx.pendingCount()).toBe(0);
}

describe('recoverArtifact: the five cases of the recovery table (OUT-2)', () => {
  it('OUT-2 nothing to recover is clean and changes nothing', () => {
    const s = crashScenario();
    const { after, result } = s.restartAndRecover();
    expect(result.outcome).toBe('clean');
    expect(result.row.byteLength).toBe(s.prefix.length);
    expectFileIs(s.file, s.prefix);
    expectNoPending(after);
  });

  it('OUT-2 stopped after the pending row, before the bytes: pending-dropped, the delta is lost, the file unchanged', () => {
    const s = crashScenario();
    s.writePendingRow();
    expect(s.before.pendingCount()).toBe(1);
    const { after, result } = s.restartAndRecover();
    expect(result.outcome).toBe('pending-dropped');
    expect(result.row.byteLength).toBe(s.prefix.length);
    expect(result.row.storageError).toBeNull();
    expectFileIs(s.file, s.prefix);
    expectNoPending(after);
  });

  it('OUT-2 stopped in the middle of the write: torn-cut, the file is cut back to the catalog length', () => {
    for (const written of [1, 250, 499]) {
      const s = crashScenario();
      s.writePendingRow();
      s.writeBytes(s.delta.subarray(0, written));
      expect(fs.statSync(s.file).size).toBe(s.prefix.length + written);
      const { after, result } = s.restartAndRecover();
      expect(result.outcome).toBe('torn-cut');
      expect(after.store.catalog.get(key)!.byteLength).toBe(s.prefix.length);
      expectFileIs(s.file, s.prefix);
      expectNoPending(after);
    }
  });

  it('OUT-2 stopped after the bytes, before the commit, digest matches: committed, byte_length moved', () => {
    const s = crashScenario();
    s.writePendingRow();
    s.writeBytes(s.delta);
    const { after, result } = s.restartAndRecover();
    expect(result.outcome).toBe('committed');
    expect(result.row.byteLength).toBe(s.prefix.length + s.delta.length);
    const row = after.store.catalog.get(key)!;
    expect(row.byteLength).toBe(s.prefix.length + s.delta.length);
    expect(row.storageError).toBeNull();
    expect(row.generation).toBe(1);
    expectFileIs(s.file, Buffer.concat([s.prefix, s.delta]));
    expectNoPending(after);
  });

  it('OUT-2 a matching pending append followed by stray bytes is committed and the strays are cut', () => {
    const s = crashScenario();
    s.writePendingRow();
    s.writeBytes(Buffer.concat([s.delta, Buffer.from('stray')]));
    const { after, result } = s.restartAndRecover();
    expect(result.outcome).toBe('committed');
    expect(after.store.catalog.get(key)!.byteLength).toBe(s.prefix.length + s.delta.length);
    expectFileIs(s.file, Buffer.concat([s.prefix, s.delta]));
    expectNoPending(after);
  });

  it('OUT-2 stopped after the bytes, digest mismatches: digest-mismatch-cut with the storage error', () => {
    const s = crashScenario();
    s.writePendingRow();
    const corrupted = Buffer.from(s.delta);
    corrupted[123] = corrupted[123]! ^ 0x01;
    s.writeBytes(corrupted);
    const { after, result } = s.restartAndRecover();
    expect(result.outcome).toBe('digest-mismatch-cut');
    const row = after.store.catalog.get(key)!;
    expect(row.byteLength).toBe(s.prefix.length);
    expect(row.storageError).toBe('Command output is unavailable because this device could not store it.');
    expect(STORAGE_FAILED_MESSAGE).toBe(row.storageError);
    expect(row.sourceIncomplete).toBe(true);
    expect(result.row.storageError).toBe(row.storageError);
    expectFileIs(s.file, s.prefix);
    expectNoPending(after);
  });

  it('OUT-2 bytes that no pending row explains: unexplained-tail-cut back to the catalog length', () => {
    const s = crashScenario();
    s.writeBytes(Buffer.from('bytes nobody committed'));
    const { after, result } = s.restartAndRecover();
    expect(result.outcome).toBe('unexplained-tail-cut');
    expect(after.store.catalog.get(key)!.byteLength).toBe(s.prefix.length);
    expect(after.store.catalog.get(key)!.storageError).toBeNull();
    expectFileIs(s.file, s.prefix);
    expectNoPending(after);
  });

  it('OUT-2 a pending row of a replaced generation explains nothing: it is dropped and extra bytes are cut', () => {
    const s = crashScenario();
    s.before.store.catalog.insertPending(key, s.prefix.length, s.delta.length, 7, sha256(s.delta));
    s.writeBytes(s.delta);
    const { after, result } = s.restartAndRecover();
    expect(result.outcome).toBe('unexplained-tail-cut');
    expect(after.store.catalog.get(key)!.byteLength).toBe(s.prefix.length);
    expectFileIs(s.file, s.prefix);
    expectNoPending(after);
  });

  it('OUT-2 a file shorter than the catalog is file-lost: storage error, the remaining bytes untouched', () => {
    const s = crashScenario();
    s.writePendingRow();
    fs.truncateSync(s.file, 600);
    const { after, result } = s.restartAndRecover();
    expect(result.outcome).toBe('file-lost');
    const row = after.store.catalog.get(key)!;
    expect(row.storageError).toBe(STORAGE_FAILED_MESSAGE);
    expect(row.sourceIncomplete).toBe(true);
    // Recovery never pretends the lost bytes are there, and never cuts what is left.
    expect(row.byteLength).toBe(s.prefix.length);
    expectFileIs(s.file, s.prefix.subarray(0, 600));
    expectNoPending(after);
  });

  it('OUT-2 a deleted file is file-lost: storage error, no file recreated', () => {
    const s = crashScenario();
    s.writePendingRow();
    fs.rmSync(s.file);
    const { after, result } = s.restartAndRecover();
    expect(result.outcome).toBe('file-lost');
    expect(after.store.catalog.get(key)!.storageError).toBe(STORAGE_FAILED_MESSAGE);
    expect(fs.existsSync(s.file)).toBe(false);
    expectNoPending(after);
  });

  it('OUT-2 recovery of an unknown key answers undefined', () => {
    const fx = openOutputStore();
    expect(recoverArtifact(fx.store.catalog, fx.store.dir, { runId: 'nope', commandId: 'nope' })).toBeUndefined();
  });
});

describe('recovery runs before every append, read and completion (OUT-2)', () => {
  it('OUT-2 an append after a torn write lands right after the committed prefix', () => {
    const s = crashScenario();
    s.writePendingRow();
    s.writeBytes(s.delta.subarray(0, 321));
    const after = s.before.reopen();
    const next = Buffer.from('next delta');
    expect(append(after.store, key, next)).toBe(true);
    expectFileIs(s.file, Buffer.concat([s.prefix, next]));
    expect(after.store.state(key)!.byteLength).toBe(s.prefix.length + next.length);
    expectNoPending(after);
  });

  it('OUT-2 a read after a complete but uncommitted write sees the committed delta', () => {
    const s = crashScenario();
    s.writePendingRow();
    s.writeBytes(s.delta);
    const after = s.before.reopen();
    const range = after.store.readOutputRange(after.sessionId, key, 1, 0, 64 * 1024);
    expect(range.availableBytes).toBe(s.prefix.length + s.delta.length);
    expect(range.bytes.equals(Buffer.concat([s.prefix, s.delta]))).toBe(true);
    expectNoPending(after);
  });

  it('OUT-2 completion after unexplained bytes settles on the committed prefix only', () => {
    const s = crashScenario();
    s.writeBytes(Buffer.from('unexplained'));
    const after = s.before.reopen();
    const { state } = after.store.settleCompletedCommand(
      key,
      { bytes: s.prefix.length, deltas: 2 },
      Buffer.from(s.prefix),
    );
    expect(state).toMatchObject({
      byteLength: s.prefix.length,
      generation: 1,
      complete: true,
      sourceIncomplete: false,
    });
    expectFileIs(s.file, s.prefix);
  });
});
