import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  decideSavedCopy,
  PERSISTED_CAP_BYTES,
  PERSISTED_CUT_MARKER,
  type SavedCopyInput,
} from '../../../../server/runtime/output/agentCopy';
import { AGGREGATE_CAP_BYTES, HeadTailAggregate } from '../../../../server/runtime/output/aggregate';
import type { OutputKey } from '../../../../server/runtime/output/catalog';
import { append, openOutputStore, patternBytes } from '../../../fixtures/outputStoreFixture';

const KiB = 1024;
const MiB = 1024 * KiB;
const key: OutputKey = { runId: 'run-1', commandId: 'cmd-1' };

/** What a command printed: 3 MiB, and the 1 MiB head/tail aggregate Codex completes it with. */
const printed = patternBytes(3 * MiB, 5);
const headTailOf = (bytes: Buffer) => {
  const aggregate = new HeadTailAggregate();
  aggregate.push(bytes);
  return aggregate.toBuffer();
};
const aggregate = headTailOf(printed);

/** Codex 0.171's saved copy of a longer output: 65,536 bytes, a head and tail around its marker. */
function persistedCut(bytes: Buffer): Buffer {
  const half = Math.floor((PERSISTED_CAP_BYTES - PERSISTED_CUT_MARKER.length) / 2);
  return Buffer.concat([
    bytes.subarray(0, half),
    Buffer.from(PERSISTED_CUT_MARKER, 'latin1'),
    bytes.subarray(bytes.length - half),
  ]);
}

/** Lost deltas: every fourth 64 KiB piece of `bytes` never arrived. */
function withLostDeltas(bytes: Buffer): { stream: Buffer; deltas: number } {
  const pieces: Buffer[] = [];
  let deltas = 0;
  for (let at = 0, n = 0; at < bytes.length; at += 64 * KiB, n++, deltas++)
    if (n % 4 !== 3) pieces.push(bytes.subarray(at, at + 64 * KiB));
  return { stream: Buffer.concat(pieces), deltas };
}

const lost = withLostDeltas(printed);

function input(overrides: Partial<SavedCopyInput> & Pick<SavedCopyInput, 'copy'>): SavedCopyInput {
  return {
    artifactBytes: lost.stream.length,
    ledger: { bytes: lost.stream.length, deltas: lost.deltas },
    aggregate,
    artifactEquals: () => {
      throw new Error('artifactEquals must not be called in this case');
    },
    ...overrides,
  };
}

describe('decideSavedCopy: the agent saved copy of an unproven stream (OUT-4)', () => {
  it('OUT-4 the fixtures are what they stand for: a stream short of what was printed, a 1 MiB aggregate, a 64 KiB persistence cut', () => {
    expect(lost.stream.length).toBeLessThan(printed.length);
    expect(lost.stream.length).toBeGreaterThan(aggregate.length);
    expect(aggregate.toString('latin1')).toContain(`\n... ${printed.length - AGGREGATE_CAP_BYTES} bytes omitted ...\n`);
    expect(persistedCut(printed).length).toBe(PERSISTED_CAP_BYTES);
  });

  it('OUT-4 a whole saved copy of a short stream becomes the next generation with sourceIncomplete false', () => {
    expect(decideSavedCopy(input({ copy: printed }))).toMatchObject({ action: 'replace', sourceIncomplete: false });
  });

  it("OUT-4 Codex's 64 KiB persistence cut never replaces a longer stream, and the flag stays", () => {
    expect(decideSavedCopy(input({ copy: persistedCut(printed) }))).toMatchObject({ action: 'keep' });
  });

  it('OUT-4 a cut copy longer than what arrived replaces it, flagged incomplete (the longer one is kept)', () => {
    const decision = decideSavedCopy(
      input({ artifactBytes: 100, ledger: { bytes: 100, deltas: 1 }, aggregate: null, copy: persistedCut(printed) }),
    );
    expect(decision).toMatchObject({ action: 'replace', sourceIncomplete: true });
  });

  it('OUT-4 a copy in the head/tail form of the completion aggregate is a cut, not the whole output', () => {
    expect(
      decideSavedCopy(input({ artifactBytes: 0, ledger: { bytes: 0, deltas: 0 }, copy: aggregate })),
    ).toMatchObject({ action: 'replace', sourceIncomplete: true });
  });

  it('OUT-4 a copy that does not match what the aggregate says was printed is not proven (wrong length, wrong head, wrong tail)', () => {
    const wrongHead = Buffer.from(printed);
    wrongHead[10] = wrongHead[10]! ^ 0xff;
    const wrongTail = Buffer.from(printed);
    wrongTail[printed.length - 10] = wrongTail[printed.length - 10]! ^ 0xff;
    for (const copy of [printed.subarray(0, printed.length - 1), wrongHead, wrongTail]) {
      expect(decideSavedCopy(input({ copy }))).toMatchObject({ action: 'replace', sourceIncomplete: true });
    }
  });

  it('OUT-4 a whole copy that holds less than the stream delivered is not proven', () => {
    const small = printed.subarray(0, 40 * KiB);
    const decision = decideSavedCopy(
      input({ artifactBytes: 60 * KiB, ledger: { bytes: 60 * KiB, deltas: 2 }, aggregate: null, copy: small }),
    );
    expect(decision).toMatchObject({ action: 'keep' });
  });

  it('OUT-4 without an aggregate, a copy under the persistence cap is whole: the same bytes are proven in place, others replace', () => {
    const output = printed.subarray(0, 48 * KiB);
    const half = output.subarray(0, 24 * KiB);
    expect(
      decideSavedCopy(
        input({ artifactBytes: half.length, ledger: { bytes: half.length, deltas: 3 }, aggregate: null, copy: output }),
      ),
    ).toMatchObject({
      action: 'replace',
      sourceIncomplete: false,
    });
    const same = decideSavedCopy(
      input({
        artifactBytes: output.length,
        ledger: { bytes: output.length, deltas: 3 },
        aggregate: null,
        copy: output,
        artifactEquals: (copy) => copy.equals(output),
      }),
    );
    expect(same).toMatchObject({ action: 'prove' });
  });

  it('OUT-4 an output that prints the persistence marker itself is not mistaken for a cut', () => {
    const output = Buffer.concat([
      printed.subarray(0, 100),
      Buffer.from(PERSISTED_CUT_MARKER, 'latin1'),
      printed.subarray(100, 20 * KiB),
    ]);
    const decision = decideSavedCopy(
      input({ artifactBytes: 50, ledger: { bytes: 50, deltas: 1 }, aggregate: null, copy: output }),
    );
    expect(decision).toMatchObject({ action: 'replace', sourceIncomplete: false });
  });

  it('OUT-4 after a plain aggregate cut at 1 MiB, a whole copy must start with it', () => {
    const plainCut = printed.subarray(0, AGGREGATE_CAP_BYTES);
    expect(decideSavedCopy(input({ aggregate: plainCut, copy: printed }))).toMatchObject({
      action: 'replace',
      sourceIncomplete: false,
    });
    const other = Buffer.from(printed);
    other[5] = other[5]! ^ 0xff;
    expect(decideSavedCopy(input({ aggregate: plainCut, copy: other }))).toMatchObject({
      action: 'replace',
      sourceIncomplete: true,
    });
  });
});

describe('CommandOutputStore.settleFromSavedCopy (OUT-4, OUT-5)', () => {
  /** A command settled from a short stream and its 1 MiB aggregate: kept, flagged incomplete. */
  function settledShort() {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    expect(append(fx.store, key, lost.stream)).toBe(true);
    const ledger = { bytes: lost.stream.length, deltas: lost.deltas };
    const { state } = fx.store.settleCompletedCommand(key, ledger, aggregate);
    expect(state).toMatchObject({ generation: 1, complete: true, sourceIncomplete: true });
    return { fx, ledger };
  }

  it('OUT-5 a whole copy is the next generation: byte-exact, sourceIncomplete false, the old generation a conflict, the old file gone', async () => {
    const { fx, ledger } = settledShort();
    const oldFile = fx.fileOf(key);
    const state = await fx.store.settleFromSavedCopy(key, ledger, aggregate, printed);
    expect(state).toMatchObject({
      generation: 2,
      byteLength: printed.length,
      complete: true,
      sourceIncomplete: false,
      storageError: null,
    });
    const page = fx.store.readOutputRange(fx.sessionId, key, 2, 0, printed.length);
    expect(page.bytes.equals(printed)).toBe(true);
    expect(page.sourceIncomplete).toBe(false);
    expect(() => fx.store.readOutputRange(fx.sessionId, key, 1, 0, 10)).toThrow(/replaced by generation 2/);
    expect(fs.existsSync(oldFile)).toBe(false);
    expect(fs.readdirSync(fx.store.dir)).toHaveLength(1);
  });

  it('OUT-4 a cut copy leaves the settled artifact and its flag as they were', async () => {
    const { fx, ledger } = settledShort();
    const state = await fx.store.settleFromSavedCopy(key, ledger, aggregate, persistedCut(printed));
    expect(state).toMatchObject({ generation: 1, byteLength: lost.stream.length, sourceIncomplete: true });
    expect(fs.readdirSync(fx.store.dir)).toHaveLength(1);
  });

  it('OUT-5 a row replaced while the copy was written keeps its new generation, and the copy leaves no file behind', async () => {
    const { fx, ledger } = settledShort();
    const settling = fx.store.settleFromSavedCopy(key, ledger, aggregate, printed);
    // Another generation lands while the copy is on its way to the disk (the write is asynchronous).
    expect(fx.store.catalog.replaceGeneration(key, 1, fs.readdirSync(fx.store.dir)[0]!, lost.stream.length, true)).toBe(
      true,
    );
    expect(await settling).toMatchObject({ generation: 2, byteLength: lost.stream.length, sourceIncomplete: true });
    expect(fs.readdirSync(fx.store.dir)).toHaveLength(1);
  });

  it('OUT-3 a row whose device could not store the output is never proven in place: a whole copy of the same bytes replaces it and clears the error', async () => {
    const fx = openOutputStore();
    fx.store.create(key, fx.sessionId);
    const output = printed.subarray(0, 40 * KiB);
    expect(append(fx.store, key, output)).toBe(true);
    fx.store.markStorageFailed(key);
    const ledger = { bytes: output.length, deltas: 1 };
    expect(fx.store.settleCompletedCommand(key, ledger, null).state).toMatchObject({
      generation: 1,
      sourceIncomplete: true,
      storageError: expect.any(String),
    });
    const state = await fx.store.settleFromSavedCopy(key, ledger, null, output);
    expect(state).toMatchObject({
      generation: 2,
      byteLength: output.length,
      sourceIncomplete: false,
      storageError: null,
    });
    expect(fx.store.readOutputRange(fx.sessionId, key, 2, 0, output.length).bytes.equals(output)).toBe(true);
  });

  it('OUT-6 a deleted artifact is left alone', async () => {
    const { fx, ledger } = settledShort();
    fx.db.prepare('DELETE FROM command_outputs').run();
    expect(await fx.store.settleFromSavedCopy(key, ledger, aggregate, printed)).toBeUndefined();
  });

  it('OUT-4 after a restart the row is as it settled, and the saved copy can still complete it', async () => {
    const { fx, ledger } = settledShort();
    const reopened = fx.reopen();
    expect(reopened.store.state(key)).toMatchObject({ generation: 1, sourceIncomplete: true });
    expect(await reopened.store.settleFromSavedCopy(key, ledger, aggregate, printed)).toMatchObject({
      generation: 2,
      sourceIncomplete: false,
    });
  });
});
