import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../../../../server/runtime/errors';
import { HeadTailAggregate } from '../../../../server/runtime/output/aggregate';
import type { CommandOutputStore } from '../../../../server/runtime/output/commandOutputStore';
import type { OutputKey } from '../../../../server/runtime/output/catalog';
import {
  cutOffOutputMessage,
  STORAGE_FAILED_MESSAGE,
  STORAGE_FULL_MESSAGE,
} from '../../../../server/runtime/output/recoverArtifact';
import { append, openOutputStore, patternBytes } from '../../../fixtures/outputStoreFixture';

const KiB = 1024;
const MiB = 1024 * KiB;
const key: OutputKey = { runId: 'run-1', commandId: 'cmd-1' };

function errorCodeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(RuntimeError);
    return (error as RuntimeError).code;
  }
  throw new Error('expected a RuntimeError, nothing was thrown');
}

function errorOf(action: () => unknown): RuntimeError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(RuntimeError);
    return error as RuntimeError;
  }
  throw new Error('expected a RuntimeError, nothing was thrown');
}

/** Appends `bytes` in deltas of `size`, asserting every append is stored. */
function appendAll(store: CommandOutputStore, k: OutputKey, bytes: Buffer, size: number): number {
  let deltas = 0;
  for (let at = 0; at < bytes.length; at += size, deltas++)
    expect(append(store, k, bytes.subarray(at, at + size))).toBe(true);
  return deltas;
}

/**
 * A real write failure: the artifact's path now leads to /dev/full, where opening for writing
 * works and every write fails with ENOSPC. (chmod cannot make a file unwritable for root.)
 */
function makeArtifactUnwritable(file: string): void {
  fs.rmSync(file);
  fs.symlinkSync('/dev/full', file);
  const fd = fs.openSync(file, 'r+');
  try {
    expect(() => fs.writeSync(fd, Buffer.from('x'), 0, 1, 0)).toThrow(/ENOSPC/);
  } finally {
    fs.closeSync(fd);
  }
}

describe('CommandOutputStore: create and append (OUT-1, OUT-2)', () => {
  it('OUT-1 create makes an empty 32-hex-digit .output file and a catalog row owned by the session', () => {
    const fx = openOutputStore();
    const state = fx.store.create(key, fx.sessionId);
    expect(state).toEqual({
      byteLength: 0,
      generation: 1,
      complete: false,
      sourceIncomplete: true,
      storageError: null,
    });
    const row = fx.store.catalog.get(key)!;
    expect(row.sessionId).toBe(fx.sessionId);
    expect(row.fileName).toMatch(/^[0-9a-f]{32}\.output$/);
    expect(path.dirname(fx.fileOf(key))).toBe(path.join(fx.root, 'command-outputs'));
    expect(fs.readFileSync(fx.fileOf(key)).length).toBe(0);

    const other = { runId: 'run-1', commandId: 'cmd-2' };
    fx.store.create(other, fx.sessionId);
    expect(fx.store.catalog.get(other)!.fileName).not.toBe(row.fileName);
  });

  it('OUT-2 appends land in order, byte for byte, and each commit moves byte_length and clears its pending row', () => {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    const output = patternBytes(200_003, 8);
    const sizes = [1, 17, 4096, 65_536, 1, 99_999];
    let at = 0;
    for (let i = 0; at < output.length; i++) {
      const delta = output.subarray(at, at + sizes[i % sizes.length]!);
      expect(append(fx.store, key, delta)).toBe(true);
      at += delta.length;
      expect(fx.store.state(key)!.byteLength).toBe(at);
      expect(fx.pendingCount()).toBe(0);
    }
    expect(fs.readFileSync(fx.fileOf(key)).equals(output)).toBe(true);
  });

  it('OUT-2 an append whose digest argument does not match its bytes still writes what it was given (digest is for recovery)', () => {
    // The digest protects the bytes across a crash; a live append is checked by its own write.
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    expect(fx.store.appendWriteAhead(key, Buffer.from('abc'), Buffer.alloc(32))).toBe(true);
    expect(fs.readFileSync(fx.fileOf(key)).toString()).toBe('abc');
  });

  it('OUT-2 appending to an unknown command is not_found', () => {
    const fx = openOutputStore();
    expect(errorCodeOf(() => append(fx.store, key, Buffer.from('x')))).toBe('not_found');
  });

  it('OUT-4 a completed artifact takes no more appends', () => {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    expect(append(fx.store, key, Buffer.from('done\n'))).toBe(true);
    fx.store.closeWithoutAggregate(key);
    expect(append(fx.store, key, Buffer.from('late'))).toBe(false);
    expect(fs.readFileSync(fx.fileOf(key)).toString()).toBe('done\n');
    expect(fx.store.state(key)!.byteLength).toBe(5);
  });
});

describe('CommandOutputStore.readOutputRange (OUT-5)', () => {
  function withOutput() {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    const output = patternBytes(300 * KiB + 7, 5);
    appendAll(fx.store, key, output, 40_000);
    return { fx, output };
  }

  it('OUT-5 reads any range of the committed bytes with the row state', () => {
    const { fx, output } = withOutput();
    for (const [offset, length] of [
      [0, 1],
      [0, 256 * KiB],
      [12_345, 100],
      [output.length - 10, 10],
      [256 * KiB, 256 * KiB],
    ] as const) {
      const range = fx.store.readOutputRange(fx.sessionId, key, 1, offset, length);
      const expected = output.subarray(offset, offset + length);
      expect(range.offset).toBe(offset);
      expect(range.bytes.equals(expected)).toBe(true);
      expect(range).toMatchObject({
        availableBytes: output.length,
        generation: 1,
        complete: false,
        sourceIncomplete: true,
      });
    }
  });

  it('OUT-5 a read at exactly the end answers 0 bytes', () => {
    const { fx, output } = withOutput();
    const range = fx.store.readOutputRange(fx.sessionId, key, 1, output.length, 1000);
    expect(range.bytes.length).toBe(0);
    expect(range.availableBytes).toBe(output.length);
  });

  it('OUT-5 an offset past the end is invalid_params and names the available bytes', () => {
    const { fx, output } = withOutput();
    const error = errorOf(() => fx.store.readOutputRange(fx.sessionId, key, 1, output.length + 1, 10));
    expect(error.code).toBe('invalid_params');
    expect(error.data).toMatchObject({ availableBytes: output.length });
  });

  it('OUT-5 a read from another session is a conflict, and reads nothing', () => {
    const { fx } = withOutput();
    const stranger = fx.addSession();
    expect(errorCodeOf(() => fx.store.readOutputRange(stranger, key, 1, 0, 10))).toBe('conflict');
    expect(errorCodeOf(() => fx.store.readOutputRange('no-such-session', key, 1, 0, 10))).toBe('conflict');
  });

  it('OUT-5 a read of a generation the artifact does not hold is a conflict naming the current one', () => {
    const { fx } = withOutput();
    for (const generation of [0, 2, 99]) {
      const error = errorOf(() => fx.store.readOutputRange(fx.sessionId, key, generation, 0, 10));
      expect(error.code).toBe('conflict');
      expect(error.data).toMatchObject({ generation: 1 });
    }
  });

  it('OUT-5 an unknown key is not_found', () => {
    const { fx } = withOutput();
    expect(
      errorCodeOf(() => fx.store.readOutputRange(fx.sessionId, { runId: 'run-1', commandId: 'other' }, 1, 0, 10)),
    ).toBe('not_found');
    expect(
      errorCodeOf(() => fx.store.readOutputRange(fx.sessionId, { runId: 'other', commandId: 'cmd-1' }, 1, 0, 10)),
    ).toBe('not_found');
  });

  it('OUT-2 a read of an artifact whose file vanished is a storage error and marks the row', () => {
    const { fx } = withOutput();
    fs.rmSync(fx.fileOf(key));
    expect(errorCodeOf(() => fx.store.readOutputRange(fx.sessionId, key, 1, 0, 10))).toBe('storage');
    expect(fx.store.state(key)!.storageError).toBe(STORAGE_FAILED_MESSAGE);
  });
});

describe('CommandOutputStore.settleCompletedCommand (OUT-4)', () => {
  it('OUT-4 the same bytes complete generation 1 in place with sourceIncomplete false', () => {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    const output = patternBytes(70_000, 2);
    const deltas = appendAll(fx.store, key, output, 7000);
    const fileBefore = fx.fileOf(key);
    const { state, decision } = fx.store.settleCompletedCommand(
      key,
      { bytes: output.length, deltas },
      Buffer.from(output),
    );
    expect(decision.action).toBe('keep');
    expect(state).toEqual({
      byteLength: output.length,
      generation: 1,
      complete: true,
      sourceIncomplete: false,
      storageError: null,
    });
    expect(fx.fileOf(key)).toBe(fileBefore);
    expect(fs.readFileSync(fileBefore).equals(output)).toBe(true);
  });

  it('OUT-4 different untruncated bytes replace the artifact as generation 2 in a new file; generation 1 reads conflict', () => {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    const streamed = Buffer.from('progress 10%\rprogress 100%\n');
    expect(append(fx.store, key, streamed)).toBe(true);
    const oldFile = fx.fileOf(key);
    // Same length as the stream (so not a cut), different bytes.
    const aggregate = Buffer.from('progress 10%\nprogress 100%\n');
    expect(aggregate.length).toBe(streamed.length);

    const { state, decision } = fx.store.settleCompletedCommand(key, { bytes: streamed.length, deltas: 1 }, aggregate);
    expect(decision.action).toBe('replace');
    expect(state).toEqual({
      byteLength: aggregate.length,
      generation: 2,
      complete: true,
      sourceIncomplete: false,
      storageError: null,
    });
    const newFile = fx.fileOf(key);
    expect(newFile).not.toBe(oldFile);
    expect(path.basename(newFile)).toMatch(/^[0-9a-f]{32}\.output$/);
    expect(fs.existsSync(oldFile)).toBe(false);
    expect(fs.readFileSync(newFile).equals(aggregate)).toBe(true);
    // No stage file is left behind.
    expect(fs.readdirSync(fx.store.dir).sort()).toEqual([path.basename(newFile)]);

    const stale = errorOf(() => fx.store.readOutputRange(fx.sessionId, key, 1, 0, 10));
    expect(stale.code).toBe('conflict');
    expect(stale.data).toMatchObject({ generation: 2 });
    const fresh = fx.store.readOutputRange(fx.sessionId, key, 2, 0, 1000);
    expect(fresh.bytes.equals(aggregate)).toBe(true);
    expect(fresh).toMatchObject({
      generation: 2,
      complete: true,
      sourceIncomplete: false,
      availableBytes: aggregate.length,
    });
  });

  it('OUT-4 a 3 MiB stream proven by the truncated aggregate stays generation 1, sourceIncomplete false', () => {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    const output = patternBytes(3 * MiB, 3);
    const aggregate = new HeadTailAggregate();
    aggregate.push(output);
    const deltas = appendAll(fx.store, key, output, 256 * KiB);
    const { state, decision } = fx.store.settleCompletedCommand(
      key,
      { bytes: output.length, deltas },
      aggregate.toBuffer(),
    );
    expect(decision.action).toBe('keep');
    expect(state).toMatchObject({ byteLength: 3 * MiB, generation: 1, complete: true, sourceIncomplete: false });
    expect(fs.readFileSync(fx.fileOf(key)).equals(output)).toBe(true);
  });

  it('OUT-4 a longer unproven stream stays generation 1 with sourceIncomplete true', () => {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    const output = patternBytes(3 * MiB, 4);
    const aggregate = new HeadTailAggregate();
    aggregate.push(output);
    const kept = output.subarray(0, Math.floor(2.4 * MiB));
    const deltas = appendAll(fx.store, key, kept, 256 * KiB);
    const { state } = fx.store.settleCompletedCommand(key, { bytes: kept.length, deltas }, aggregate.toBuffer());
    expect(state).toMatchObject({ byteLength: kept.length, generation: 1, complete: true, sourceIncomplete: true });
    expect(fs.readFileSync(fx.fileOf(key)).equals(kept)).toBe(true);
  });

  it('OUT-4 without an aggregate the artifact completes as it stands, sourceIncomplete true', () => {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    expect(append(fx.store, key, Buffer.from('hello'))).toBe(true);
    const { state, decision } = fx.store.settleCompletedCommand(key, { bytes: 5, deltas: 1 }, null);
    expect(decision.action).toBe('keep');
    expect(state).toMatchObject({ byteLength: 5, generation: 1, complete: true, sourceIncomplete: true });
    expect(fx.store.closeWithoutAggregate({ runId: 'x', commandId: 'y' })).toBeUndefined();
    expect(
      errorCodeOf(() => fx.store.settleCompletedCommand({ runId: 'x', commandId: 'y' }, { bytes: 0, deltas: 0 }, null)),
    ).toBe('not_found');
  });
});

describe('a failed append (OUT-3)', () => {
  it('OUT-3 a write that really fails returns false, marks the row, drops later deltas, and the aggregate becomes generation 2', () => {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    const file = fx.fileOf(key);
    makeArtifactUnwritable(file);

    expect(append(fx.store, key, Buffer.from('first delta'))).toBe(false);
    const failed = fx.store.state(key)!;
    // OUT-3's message, and the reason: /dev/full answers ENOSPC.
    expect(failed.storageError).toBe(
      'Command output is unavailable because this device could not store it. The disk is full.',
    );
    expect(failed.sourceIncomplete).toBe(true);
    expect(failed.byteLength).toBe(0);

    // Even once the disk works again, later deltas of this command are dropped.
    fs.rmSync(file);
    fs.writeFileSync(file, '');
    expect(append(fx.store, key, Buffer.from('second delta'))).toBe(false);
    expect(fs.readFileSync(file).length).toBe(0);
    expect(fx.store.state(key)!.byteLength).toBe(0);

    const printed = patternBytes(3 * MiB, 6);
    const aggregate = new HeadTailAggregate();
    aggregate.push(printed);
    const { state, decision } = fx.store.settleCompletedCommand(
      key,
      { bytes: printed.length, deltas: 2 },
      aggregate.toBuffer(),
    );
    expect(decision.action).toBe('replace');
    expect(state).toEqual({
      byteLength: aggregate.toBuffer().length,
      generation: 2,
      complete: true,
      sourceIncomplete: true,
      storageError: cutOffOutputMessage(STORAGE_FULL_MESSAGE),
    });
    expect(fs.readFileSync(fx.fileOf(key)).equals(aggregate.toBuffer())).toBe(true);
    expect(fs.existsSync(file)).toBe(false);
    expect(fx.pendingCount()).toBe(0);
  });

  it('OUT-3 after a failed append a command without an aggregate keeps the failure on its row', () => {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    makeArtifactUnwritable(fx.fileOf(key));
    expect(append(fx.store, key, Buffer.from('lost'))).toBe(false);
    const { state, decision } = fx.store.settleCompletedCommand(key, { bytes: 4, deltas: 1 }, null);
    expect(decision.action).toBe('keep-failed');
    // /dev/full answers ENOSPC: the row says the disk is full.
    expect(state).toMatchObject({ generation: 1, sourceIncomplete: true, storageError: STORAGE_FULL_MESSAGE });
    expect(fx.pendingCount()).toBe(0);
  });

  it('OUT-3 a file lost mid-command fails the next append and the aggregate replaces it at completion', () => {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    expect(append(fx.store, key, Buffer.from('before the loss\n'))).toBe(true);
    const file = fx.fileOf(key);
    fs.rmSync(file);
    expect(append(fx.store, key, Buffer.from('after\n'))).toBe(false);
    expect(fx.store.state(key)!.storageError).toBe(STORAGE_FAILED_MESSAGE);
    expect(fs.existsSync(file)).toBe(false);

    const aggregate = Buffer.from('before the loss\nafter\n');
    const { state } = fx.store.settleCompletedCommand(key, { bytes: aggregate.length, deltas: 2 }, aggregate);
    expect(state).toMatchObject({ generation: 2, complete: true, storageError: null, byteLength: aggregate.length });
    expect(fx.store.readOutputRange(fx.sessionId, key, 2, 0, 100).bytes.equals(aggregate)).toBe(true);
  });
});

describe('deleting a session (OUT-6)', () => {
  it('OUT-6 the delete transaction removes the session rows and their pending appends; then the files go', () => {
    const fx = openOutputStore();
    const other = fx.addSession();
    const mine = [key, { runId: 'run-1', commandId: 'cmd-2' }];
    const theirs = { runId: 'run-9', commandId: 'cmd-1' };
    for (const k of mine) {
      fx.store.create(k, fx.sessionId);
      expect(append(fx.store, k, Buffer.from('mine'))).toBe(true);
    }
    fx.store.create(theirs, other);
    expect(append(fx.store, theirs, Buffer.from('theirs'))).toBe(true);
    fx.store.catalog.insertPending(key, 4, 3, 1, Buffer.alloc(32));
    const myFiles = mine.map((k) => fx.fileOf(k));

    const files = fx.db.transaction(() => {
      const names = fx.store.catalog.deleteForSession(fx.sessionId);
      fx.db.prepare('DELETE FROM sessions WHERE id = ?').run(fx.sessionId);
      return names;
    })();
    expect(files.sort()).toEqual(myFiles.map((f) => path.basename(f)).sort());
    expect(fx.pendingCount()).toBe(0);
    for (const k of mine) expect(fx.store.catalog.get(k)).toBeUndefined();

    fx.store.removeFiles(files);
    for (const f of myFiles) expect(fs.existsSync(f)).toBe(false);
    expect(fx.store.readOutputRange(other, theirs, 1, 0, 100).bytes.toString()).toBe('theirs');
  });
});
