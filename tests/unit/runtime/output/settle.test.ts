import { describe, expect, it } from 'vitest';
import { HeadTailAggregate } from '../../../../server/runtime/output/aggregate';
import { decideSettlement, type SettleInput } from '../../../../server/runtime/output/settle';
import { patternBytes } from '../../../fixtures/outputStoreFixture';

const KiB = 1024;
const MiB = 1024 * KiB;

/** The OUT-4 example: a command printed 3 MiB; the agent kept a 1 MiB head/tail aggregate. */
const PRINTED = 3 * MiB;
const printedOutput = patternBytes(PRINTED, 11);
const truncatedAggregate = (() => {
  const aggregate = new HeadTailAggregate();
  for (let at = 0; at < PRINTED; at += 64 * KiB) aggregate.push(printedOutput.subarray(at, at + 64 * KiB));
  return aggregate.toBuffer();
})();

/** Compares against the real bytes of the artifact, as the store does. */
const equalsBytes = (artifact: Buffer) => (aggregate: Buffer) => artifact.equals(aggregate);

function input(overrides: Partial<SettleInput>): SettleInput {
  return {
    artifactBytes: 0,
    storageFailed: false,
    ledger: { bytes: 0, deltas: 0 },
    aggregate: null,
    artifactEquals: () => {
      throw new Error('artifactEquals must not be called in this case');
    },
    ...overrides,
  };
}

describe('decideSettlement: a truncated aggregate never replaces a longer stream (OUT-4 example)', () => {
  it('OUT-4 the test aggregate is the OUT-4 example: 1 MiB around "2097152 bytes omitted"', () => {
    expect(truncatedAggregate.toString('latin1')).toContain('\n... 2097152 bytes omitted ...\n');
    expect(truncatedAggregate.length).toBeLessThan(MiB + 64);
  });

  it('OUT-4 stream proven complete keeps generation 1 with sourceIncomplete false', () => {
    const decision = decideSettlement(
      input({ artifactBytes: PRINTED, ledger: { bytes: PRINTED, deltas: 48 }, aggregate: truncatedAggregate }),
    );
    expect(decision).toMatchObject({ action: 'keep', sourceIncomplete: false });
  });

  it('OUT-4 stream longer than the truncated aggregate (2.4 MiB counted) is kept with sourceIncomplete true', () => {
    const counted = Math.floor(2.4 * MiB);
    const decision = decideSettlement(
      input({ artifactBytes: counted, ledger: { bytes: counted, deltas: 39 }, aggregate: truncatedAggregate }),
    );
    expect(decision).toMatchObject({ action: 'keep', sourceIncomplete: true });
  });

  it('OUT-4 after a failed append the truncated aggregate replaces the artifact with sourceIncomplete true', () => {
    const decision = decideSettlement(
      input({
        artifactBytes: 5 * 64 * KiB,
        storageFailed: true,
        ledger: { bytes: PRINTED, deltas: 48 },
        aggregate: truncatedAggregate,
      }),
    );
    expect(decision).toMatchObject({ action: 'replace', sourceIncomplete: true });
  });

  it('OUT-4 a comma-grouped marker ("2,097,152 bytes omitted") proves a stream just the same', () => {
    const half = 512 * KiB;
    const aggregate = Buffer.concat([
      printedOutput.subarray(0, half),
      Buffer.from('\n... 2,097,152 bytes omitted ...\n'),
      printedOutput.subarray(PRINTED - half),
    ]);
    const decision = decideSettlement(
      input({ artifactBytes: PRINTED, ledger: { bytes: PRINTED, deltas: 48 }, aggregate }),
    );
    expect(decision).toMatchObject({ action: 'keep', sourceIncomplete: false });
  });

  it('OUT-4 proof allows 8 bytes in total, not per delta: 8 short is proven, 9 short is not', () => {
    const atSlack = decideSettlement(
      input({
        artifactBytes: PRINTED - 8,
        ledger: { bytes: PRINTED - 8, deltas: 1000 },
        aggregate: truncatedAggregate,
      }),
    );
    expect(atSlack).toMatchObject({ action: 'keep', sourceIncomplete: false });

    const pastSlack = decideSettlement(
      input({
        artifactBytes: PRINTED - 9,
        ledger: { bytes: PRINTED - 9, deltas: 1000 },
        aggregate: truncatedAggregate,
      }),
    );
    expect(pastSlack).toMatchObject({ action: 'keep', sourceIncomplete: true });
  });

  it('OUT-4 an unproven stream no longer than the truncated aggregate is replaced by it, sourceIncomplete true', () => {
    for (const artifactBytes of [0, 100 * KiB, truncatedAggregate.length]) {
      const decision = decideSettlement(
        input({ artifactBytes, ledger: { bytes: artifactBytes, deltas: 3 }, aggregate: truncatedAggregate }),
      );
      expect(decision).toMatchObject({ action: 'replace', sourceIncomplete: true });
    }
  });

  it('OUT-4 a truncated aggregate never replaces a longer stream, whatever the ledger', () => {
    for (const artifactBytes of [truncatedAggregate.length + 1, 2 * MiB, PRINTED - 100, PRINTED, PRINTED + 5]) {
      for (const ledgerBytes of [0, MiB, artifactBytes, PRINTED]) {
        const decision = decideSettlement(
          input({ artifactBytes, ledger: { bytes: ledgerBytes, deltas: 10 }, aggregate: truncatedAggregate }),
        );
        expect(decision.action).toBe('keep');
        expect(decision.sourceIncomplete).toBe(ledgerBytes + 8 < PRINTED);
      }
    }
  });
});

describe('decideSettlement: untruncated aggregates and the classic 1 MiB cut', () => {
  const small = patternBytes(10 * KiB, 21);

  it('OUT-4 the same bytes complete in place with sourceIncomplete false', () => {
    const decision = decideSettlement(
      input({
        artifactBytes: small.length,
        ledger: { bytes: small.length, deltas: 4 },
        aggregate: small,
        artifactEquals: equalsBytes(Buffer.from(small)),
      }),
    );
    expect(decision).toMatchObject({ action: 'keep', sourceIncomplete: false });
  });

  it('OUT-4 different bytes of the same length, not truncated, become the next generation', () => {
    const stored = Buffer.from(small);
    stored[stored.length - 1] = stored[stored.length - 1]! ^ 0xff;
    const decision = decideSettlement(
      input({
        artifactBytes: stored.length,
        ledger: { bytes: small.length, deltas: 4 },
        aggregate: small,
        artifactEquals: equalsBytes(stored),
      }),
    );
    expect(decision).toMatchObject({ action: 'replace', sourceIncomplete: false });
  });

  it('OUT-4 a shorter artifact is replaced by an untruncated aggregate without comparing bytes', () => {
    let compared = 0;
    const decision = decideSettlement(
      input({
        artifactBytes: small.length - 100,
        ledger: { bytes: small.length, deltas: 4 },
        aggregate: small,
        artifactEquals: () => {
          compared++;
          return true;
        },
      }),
    );
    expect(decision).toMatchObject({ action: 'replace', sourceIncomplete: false });
    expect(compared).toBe(0);
  });

  it('OUT-4 a classic cut (plain aggregate at 1 MiB, stream longer by more than 8 bytes per delta) keeps the stream', () => {
    const cut = printedOutput.subarray(0, MiB);
    const decision = decideSettlement(
      input({ artifactBytes: PRINTED, ledger: { bytes: PRINTED, deltas: 48 }, aggregate: cut }),
    );
    expect(decision).toMatchObject({ action: 'keep', sourceIncomplete: true });
  });

  it('OUT-4 classic cut boundary: exactly 8 bytes per delta over is not a cut, one byte more is', () => {
    const cut = printedOutput.subarray(0, MiB);
    const deltas = 100;
    const atSlack = MiB + 8 * deltas;
    const notCut = decideSettlement(
      input({ artifactBytes: atSlack, ledger: { bytes: atSlack, deltas }, aggregate: cut }),
    );
    // Taken as untruncated with different bytes: next generation, and at the cap a cut cannot be ruled out.
    expect(notCut).toMatchObject({ action: 'replace', sourceIncomplete: true });

    const cutDetected = decideSettlement(
      input({ artifactBytes: atSlack + 1, ledger: { bytes: atSlack + 1, deltas }, aggregate: cut }),
    );
    expect(cutDetected).toMatchObject({ action: 'keep', sourceIncomplete: true });
  });

  it('OUT-4 the classic-cut slack grows with the number of deltas', () => {
    const cut = printedOutput.subarray(0, MiB);
    const ledgerBytes = MiB + 80;
    expect(
      decideSettlement(input({ artifactBytes: ledgerBytes, ledger: { bytes: ledgerBytes, deltas: 9 }, aggregate: cut }))
        .action,
    ).toBe('keep');
    expect(
      decideSettlement(
        input({ artifactBytes: ledgerBytes, ledger: { bytes: ledgerBytes, deltas: 10 }, aggregate: cut }),
      ).action,
    ).toBe('replace');
  });

  it('OUT-4 a plain aggregate never proves a stream: same bytes at the cap are kept, a cut keeps sourceIncomplete true', () => {
    const atCap = printedOutput.subarray(0, MiB);
    const same = decideSettlement(
      input({
        artifactBytes: MiB,
        ledger: { bytes: MiB, deltas: 16 },
        aggregate: atCap,
        artifactEquals: equalsBytes(Buffer.from(atCap)),
      }),
    );
    expect(same.action).toBe('keep');
    const longer = decideSettlement(
      input({ artifactBytes: 2 * MiB, ledger: { bytes: 2 * MiB, deltas: 32 }, aggregate: atCap }),
    );
    expect(longer).toMatchObject({ action: 'keep', sourceIncomplete: true });
  });
});

describe('decideSettlement: no aggregate, failed storage', () => {
  it('OUT-4 without an aggregate the stream is kept but cannot be proven', () => {
    const decision = decideSettlement(input({ artifactBytes: 5000, ledger: { bytes: 5000, deltas: 3 } }));
    expect(decision).toMatchObject({ action: 'keep', sourceIncomplete: true });
  });

  it('OUT-3 storage failed without an aggregate keeps the failure (keep-failed)', () => {
    const decision = decideSettlement(
      input({ artifactBytes: 5000, storageFailed: true, ledger: { bytes: 9000, deltas: 3 } }),
    );
    expect(decision).toMatchObject({ action: 'keep-failed', sourceIncomplete: true });
  });

  it('OUT-3 storage failed with a small plain aggregate that holds the whole stream: replaced, nothing missing', () => {
    const whole = patternBytes(3000, 4);
    const decision = decideSettlement(
      input({ artifactBytes: 1000, storageFailed: true, ledger: { bytes: 3000, deltas: 3 }, aggregate: whole }),
    );
    expect(decision).toMatchObject({ action: 'replace', sourceIncomplete: false });
  });

  it('OUT-3 storage failed with a plain aggregate the stream outgrew (a classic cut): replaced, sourceIncomplete true', () => {
    const cut = printedOutput.subarray(0, MiB);
    const decision = decideSettlement(
      input({ artifactBytes: 0, storageFailed: true, ledger: { bytes: PRINTED, deltas: 48 }, aggregate: cut }),
    );
    expect(decision).toMatchObject({ action: 'replace', sourceIncomplete: true });
  });

  it('OUT-3 storage failed never keeps the partial artifact, even when it is longer or proven', () => {
    for (const artifactBytes of [0, 2 * MiB, PRINTED]) {
      const decision = decideSettlement(
        input({
          artifactBytes,
          storageFailed: true,
          ledger: { bytes: PRINTED, deltas: 48 },
          aggregate: truncatedAggregate,
        }),
      );
      expect(decision).toMatchObject({ action: 'replace', sourceIncomplete: true });
    }
  });
});
