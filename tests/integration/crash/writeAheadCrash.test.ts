import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeError } from '../../../server/runtime/errors';
import type { OutputKey } from '../../../server/runtime/output/catalog';
import { STORAGE_FAILED_MESSAGE } from '../../../server/runtime/output/recoverArtifact';
import { sweepOutputFolder } from '../../../server/runtime/output/startupSweep';
import { streamBytes } from '../../fixtures/crashContent';
import { openCrashStore, type CrashPoint, type CrashStore } from '../../fixtures/crashPlan';
import { makeTempDir } from '../../fixtures/tempDir';
import {
  describeArtifactMismatch,
  pendingCount,
  prepareDataDir,
  rawState,
  recoverThenDie,
  runSteps,
} from './crashHarness';

/**
 * OUT-2: a real child process appends through the real store and dies by SIGKILL at one step of
 * the write-ahead append; the test then opens the store again, as the runtime does at start-up,
 * and checks each of the five recovery cases of OUT-2.
 */

/** Appends the child commits before it crashes: odd sizes, one byte, a page, more than 64 KiB. */
const COMMITTED_SIZES = [1, 4096, 100_000, 17, 65_536, 3];
const COMMITTED = COMMITTED_SIZES.reduce((a, b) => a + b, 0);
const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest();

const opened: CrashStore[] = [];
afterEach(() => {
  for (const o of opened.splice(0)) if (o.db.open) o.db.close();
});

function reopen(dataDir: string): CrashStore {
  const o = openCrashStore(dataDir);
  opened.push(o);
  return o;
}

/** Runs the child to its crash, then opens the store again in this process (no recovery yet). */
async function crashThenReopen(crash: CrashPoint) {
  const data = prepareDataDir(makeTempDir('hbcode-crash-'));
  const { ready, committed } = await runSteps({
    mode: 'steps',
    dataDir: data.dataDir,
    key: data.key,
    appends: COMMITTED_SIZES,
    crash,
  });
  expect(ready).toBe(0);
  expect(committed).toBe(COMMITTED);
  const store = reopen(data.dataDir);
  return { ...data, ...store, raw: rawState(store, data.key) };
}

/** After recovery: no pending row, and the file holds exactly the committed stream bytes. */
function expectRecovered(o: CrashStore, key: OutputKey, byteLength: number, storageError: string | null) {
  expect(pendingCount(o)).toBe(0);
  const row = o.store.catalog.get(key)!;
  expect(row).toMatchObject({ byteLength, generation: 1, complete: false, storageError });
  if (storageError) expect(row.sourceIncomplete).toBe(true);
  expect(describeArtifactMismatch(rawState(o, key).file, byteLength)).toBeNull();
}

describe('OUT-2 write-ahead appends survive SIGKILL at every step', () => {
  it('OUT-2 killed after the pending row, before the bytes: the pending row is removed, the delta is lost, the file is unchanged', async () => {
    const size = 5000;
    const { dataDir, key, raw, store, db } = await crashThenReopen({ kind: 'before-bytes', size });
    expect(raw.fileSize).toBe(COMMITTED);
    expect(raw.row.byteLength).toBe(COMMITTED);
    expect(raw.pending).toEqual([
      {
        id: expect.any(Number),
        expectedOffset: COMMITTED,
        length: size,
        generation: 1,
        sha256: sha256(streamBytes(COMMITTED, size)),
      },
    ]);

    expect(sweepOutputFolder(store).recovered).toEqual({ 'pending-dropped': 1 });
    expectRecovered({ db, store }, key, COMMITTED, null);

    // The next process continues at the committed end: the lost delta leaves no hole.
    db.close();
    const next = await runSteps({ mode: 'steps', dataDir, key, appends: [3000], crash: null });
    expect(next).toEqual({ ready: COMMITTED, committed: COMMITTED + 3000 });
    expectRecovered(reopen(dataDir), key, COMMITTED + 3000, null);
  });

  it('OUT-2 killed in the middle of the write: the torn tail is cut back to the catalog length', async () => {
    const size = 50_000;
    const { key, raw, store, db } = await crashThenReopen({ kind: 'torn-write', size, writtenBytes: 20_000 });
    expect(raw.row.byteLength).toBe(COMMITTED);
    expect(raw.fileSize).toBe(COMMITTED + 20_000);
    expect(raw.pending).toMatchObject([{ expectedOffset: COMMITTED, length: size, generation: 1 }]);

    expect(sweepOutputFolder(store).recovered).toEqual({ 'torn-cut': 1 });
    expectRecovered({ db, store }, key, COMMITTED, null);
  });

  it('OUT-2 killed after the bytes, before the commit: the digest matches and the append is committed', async () => {
    const size = 70_000;
    const { key, raw, store, db } = await crashThenReopen({ kind: 'after-bytes', size });
    expect(raw.row.byteLength).toBe(COMMITTED);
    expect(raw.fileSize).toBe(COMMITTED + size);
    expect(raw.pending).toMatchObject([{ expectedOffset: COMMITTED, length: size, generation: 1 }]);

    expect(sweepOutputFolder(store).recovered).toEqual({ committed: 1 });
    expectRecovered({ db, store }, key, COMMITTED + size, null);
  });

  it('OUT-2 killed after the bytes, with a changed byte in them: the tail is cut and the output reports a storage error (OUT-3)', async () => {
    const size = 70_000;
    const { key, raw, store, db } = await crashThenReopen({ kind: 'after-bytes', size });
    expect(raw.fileSize).toBe(COMMITTED + size);
    const flipAt = COMMITTED + 12_345;
    const fd = fs.openSync(raw.file, 'r+');
    const byte = Buffer.alloc(1);
    fs.readSync(fd, byte, 0, 1, flipAt);
    byte[0] = byte[0]! ^ 0x40;
    fs.writeSync(fd, byte, 0, 1, flipAt);
    fs.closeSync(fd);

    expect(sweepOutputFolder(store).recovered).toEqual({ 'digest-mismatch-cut': 1 });
    expectRecovered({ db, store }, key, COMMITTED, STORAGE_FAILED_MESSAGE);
    expect(store.state(key)?.storageError).toBe(
      'Command output is unavailable because this device could not store it.',
    );

    // OUT-3: later deltas of that command are dropped, and the committed bytes stay readable.
    const later = streamBytes(COMMITTED, 10);
    expect(store.appendWriteAhead(key, later, sha256(later))).toBe(false);
    expectRecovered({ db, store }, key, COMMITTED, STORAGE_FAILED_MESSAGE);
  });

  it('OUT-2 killed with bytes that no pending row explains: the file is cut back to the catalog length', async () => {
    const { key, raw, store, db } = await crashThenReopen({ kind: 'unexplained-tail', size: 7777 });
    expect(raw.pending).toEqual([]);
    expect(raw.row.byteLength).toBe(COMMITTED);
    expect(raw.fileSize).toBe(COMMITTED + 7777);

    expect(store.recover(key)?.outcome).toBe('unexplained-tail-cut');
    expectRecovered({ db, store }, key, COMMITTED, null);
  });

  it('OUT-2 a file truncated below the catalog length after the crash is an error, and its pending row is removed', async () => {
    const { key, raw, store, db, sessionId } = await crashThenReopen({ kind: 'after-bytes', size: 9000 });
    expect(raw.pending).toHaveLength(1);
    fs.truncateSync(raw.file, COMMITTED - 1000);

    expect(sweepOutputFolder(store).recovered).toEqual({ 'file-lost': 1 });
    expect(pendingCount({ db, store })).toBe(0);
    // The catalog never claims the bytes the file lost, nor the uncommitted append.
    expect(store.catalog.get(key)).toMatchObject({
      byteLength: COMMITTED,
      storageError: STORAGE_FAILED_MESSAGE,
      sourceIncomplete: true,
    });
    expect(fs.statSync(raw.file).size).toBe(COMMITTED - 1000);
    let readError: unknown;
    try {
      store.readOutputRange(sessionId, key, 1, 0, 1024);
    } catch (error) {
      readError = error;
    }
    expect(readError).toBeInstanceOf(RuntimeError);
    expect((readError as RuntimeError).code).toBe('storage');
  });

  it('OUT-2 a file deleted after the crash is an error', async () => {
    const { key, raw, store, db } = await crashThenReopen({ kind: 'after-commit' });
    expect(raw.pending).toEqual([]);
    expect(raw.fileSize).toBe(COMMITTED);
    fs.rmSync(raw.file);

    expect(sweepOutputFolder(store).recovered).toEqual({ 'file-lost': 1 });
    expect(pendingCount({ db, store })).toBe(0);
    expect(store.catalog.get(key)).toMatchObject({
      byteLength: COMMITTED,
      storageError: STORAGE_FAILED_MESSAGE,
      sourceIncomplete: true,
    });
    const later = streamBytes(COMMITTED, 10);
    expect(store.appendWriteAhead(key, later, sha256(later))).toBe(false);
    expect(fs.existsSync(raw.file)).toBe(false);
  });

  it('OUT-2 recovery runs before the next append in a new process: a torn write leaves no trace in the stream', async () => {
    const data = prepareDataDir(makeTempDir('hbcode-crash-'));
    await runSteps({
      mode: 'steps',
      dataDir: data.dataDir,
      key: data.key,
      appends: COMMITTED_SIZES,
      crash: { kind: 'torn-write', size: 40_000, writtenBytes: 39_999 },
    });
    // No recovery here: the next writer's own append has to find and cut the torn tail.
    const next = await runSteps({
      mode: 'steps',
      dataDir: data.dataDir,
      key: data.key,
      appends: [1, 2, 60_000],
      crash: null,
    });
    expect(next).toEqual({ ready: COMMITTED, committed: COMMITTED + 60_003 });
    expectRecovered(reopen(data.dataDir), data.key, COMMITTED + 60_003, null);
  });

  it('OUT-2 recovery runs before a read: the reader sees only committed bytes', async () => {
    const { key, raw, store, db, sessionId } = await crashThenReopen({
      kind: 'torn-write',
      size: 30_000,
      writtenBytes: 1,
    });
    expect(raw.fileSize).toBe(COMMITTED + 1);
    const range = store.readOutputRange(sessionId, key, 1, COMMITTED - 100, 262_144);
    expect(range.availableBytes).toBe(COMMITTED);
    expect(range.bytes.equals(streamBytes(COMMITTED - 100, 100))).toBe(true);
    expectRecovered({ db, store }, key, COMMITTED, null);
  });

  it('OUT-2 killed during recovery of a torn write: the next recovery finishes the job', async () => {
    const { dataDir, key, db } = await crashThenReopen({ kind: 'torn-write', size: 30_000, writtenBytes: 12_345 });
    db.close();
    await recoverThenDie(dataDir);
    const store = reopen(dataDir);
    const raw = rawState(store, key);
    expect(raw.fileSize).toBe(COMMITTED);
    expect(sweepOutputFolder(store.store).recovered).toEqual({ 'pending-dropped': 1 });
    expectRecovered(store, key, COMMITTED, null);
  });

  it('OUT-2 killed during recovery of a digest mismatch: the storage error is not lost', async () => {
    const { dataDir, key, db, raw } = await crashThenReopen({ kind: 'after-bytes', size: 30_000 });
    db.close();
    const fd = fs.openSync(raw.file, 'r+');
    fs.writeSync(fd, Buffer.from([streamBytes(COMMITTED + 29_999, 1)[0]! ^ 1]), 0, 1, COMMITTED + 29_999);
    fs.closeSync(fd);
    await recoverThenDie(dataDir);
    const store = reopen(dataDir);
    expect(rawState(store, key).fileSize).toBe(COMMITTED);
    sweepOutputFolder(store.store);
    expectRecovered(store, key, COMMITTED, STORAGE_FAILED_MESSAGE);
  });

  it('OUT-2 the start-up sweep recovers every artifact of the folder, each by its own case', async () => {
    const data = prepareDataDir(makeTempDir('hbcode-crash-'));
    const crashes: Record<string, CrashPoint> = {
      'pending-dropped': { kind: 'before-bytes', size: 100 },
      'torn-cut': { kind: 'torn-write', size: 100, writtenBytes: 50 },
      committed: { kind: 'after-bytes', size: 100 },
      'unexplained-tail-cut': { kind: 'unexplained-tail', size: 100 },
      clean: { kind: 'after-commit' },
    };
    const keys: Record<string, OutputKey> = {};
    for (const [outcome, crash] of Object.entries(crashes)) {
      keys[outcome] = data.addOutput();
      await runSteps({ mode: 'steps', dataDir: data.dataDir, key: keys[outcome]!, appends: [1000, 234], crash });
    }
    const store = reopen(data.dataDir);
    const report = sweepOutputFolder(store.store);
    expect(report.recovered).toEqual({ 'pending-dropped': 1, 'torn-cut': 1, committed: 1, 'unexplained-tail-cut': 1 });
    expect(report.unknownFilesRemoved).toBe(0);
    expectRecovered(store, keys['pending-dropped']!, 1234, null);
    expectRecovered(store, keys['torn-cut']!, 1234, null);
    expectRecovered(store, keys.committed!, 1334, null);
    expectRecovered(store, keys['unexplained-tail-cut']!, 1234, null);
    expectRecovered(store, keys.clean!, 1234, null);
    // The output the test prepared first was never appended to and is untouched.
    expectRecovered(store, data.key, 0, null);
  });
});
