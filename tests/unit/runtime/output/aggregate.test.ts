import { describe, expect, it } from 'vitest';
import {
  AGGREGATE_CAP_BYTES,
  HeadTailAggregate,
  omittedMarker,
  parseAggregate,
} from '../../../../server/runtime/output/aggregate';
import { patternBytes } from '../../../fixtures/outputStoreFixture';

const KiB = 1024;
const MiB = 1024 * KiB;
const HALF = 512 * KiB;

/** What the shell's aggregate must hold for `full`, computed from the whole output (OUT-4). */
function expectedAggregate(full: Buffer): Buffer {
  if (full.length <= MiB) return full;
  const omitted = full.length - MiB;
  return Buffer.concat([
    full.subarray(0, HALF),
    Buffer.from(`\n... ${omitted} bytes omitted ...\n`, 'latin1'),
    full.subarray(full.length - HALF),
  ]);
}

function feed(aggregate: HeadTailAggregate, full: Buffer, chunkSizes: (index: number) => number): void {
  for (let at = 0, i = 0; at < full.length; i++) {
    const n = Math.max(1, chunkSizes(i));
    aggregate.push(full.subarray(at, at + n));
    at += n;
  }
}

/** Compares buffers without printing megabytes when they differ. */
function expectSameBytes(actual: Buffer, expected: Buffer): void {
  expect(actual.length).toBe(expected.length);
  const firstDifference = actual.findIndex((byte, i) => byte !== expected[i]);
  expect(firstDifference).toBe(-1);
}

describe('HeadTailAggregate', () => {
  it('OUT-4 output of at most 1 MiB is returned whole, for any chunking', () => {
    for (const total of [0, 1, 1000, HALF - 1, HALF, HALF + 1, MiB - 1, MiB]) {
      const full = patternBytes(total, total + 3);
      for (const chunk of [1, 7, 4093, HALF, MiB + 5]) {
        if (chunk === 1 && total > 64 * KiB) continue; // byte-at-a-time is covered by the smaller sizes
        const aggregate = new HeadTailAggregate();
        feed(aggregate, full, () => chunk);
        expect(aggregate.totalBytes).toBe(total);
        expectSameBytes(aggregate.toBuffer(), full);
      }
    }
  });

  it('OUT-4 output over 1 MiB keeps a 512 KiB head, the omitted-bytes marker and a 512 KiB tail', () => {
    const totals = [MiB + 1, MiB + 4097, 2 * MiB + 12345, 3 * MiB];
    const chunkSizes = [7, 4093, 65536, HALF - 1, HALF, HALF + 1, 700_001, 2 * MiB + 3, 4 * MiB];
    for (const total of totals) {
      const full = patternBytes(total, total);
      for (const chunk of chunkSizes) {
        const aggregate = new HeadTailAggregate();
        feed(aggregate, full, () => chunk);
        const actual = aggregate.toBuffer();
        const marker = `\n... ${total - MiB} bytes omitted ...\n`;
        expect(aggregate.totalBytes).toBe(total);
        expect(actual.length).toBe(MiB + marker.length);
        expectSameBytes(actual.subarray(0, HALF), full.subarray(0, HALF));
        expect(actual.subarray(HALF, HALF + marker.length).toString('latin1')).toBe(marker);
        expectSameBytes(actual.subarray(HALF + marker.length), full.subarray(total - HALF));
      }
    }
  });

  it('OUT-4 byte-at-a-time and irregular chunking give the same aggregate as the reference', () => {
    const full = patternBytes(MiB + 3001, 42);
    const byByte = new HeadTailAggregate();
    feed(byByte, full, () => 1);
    expectSameBytes(byByte.toBuffer(), expectedAggregate(full));

    const irregular = new HeadTailAggregate();
    const sizes = [1, 3, 511 * KiB, 2, HALF + 17, 5, 300_007, 1, 999_983];
    feed(irregular, full, (i) => sizes[i % sizes.length]!);
    expectSameBytes(irregular.toBuffer(), expectedAggregate(full));
  });

  it('OUT-4 the aggregate is right at every point of a long stream, not only at the end', () => {
    const full = patternBytes(4 * MiB + 777, 9);
    const aggregate = new HeadTailAggregate();
    const chunk = 333_331; // not a divisor of the tail, so the ring wraps at a different place each time
    for (let at = 0; at < full.length; at += chunk) {
      aggregate.push(full.subarray(at, at + chunk));
      const seen = full.subarray(0, Math.min(full.length, at + chunk));
      expectSameBytes(aggregate.toBuffer(), expectedAggregate(seen));
    }
  });

  it('OUT-4 memory grows with the output: a 9-byte command does not cost 1 MiB', () => {
    const count = 64;
    const before = process.memoryUsage().arrayBuffers;
    const kept = Array.from({ length: count }, () => {
      const aggregate = new HeadTailAggregate();
      aggregate.push(Buffer.from('hello s1\n'));
      return aggregate;
    });
    const perAggregate = (process.memoryUsage().arrayBuffers - before) / count;
    expect(kept.every((a) => a.toBuffer().toString() === 'hello s1\n')).toBe(true);
    // Far below the cap: what a 9-byte output needs plus small slack, never the 1 MiB up front.
    expect(perAggregate).toBeLessThan(16 * KiB);
  });

  it('OUT-4 a small cap splits evenly and wraps its ring correctly', () => {
    const full = patternBytes(1000, 5);
    for (const chunk of [1, 3, 9, 10, 11, 64, 1000]) {
      const aggregate = new HeadTailAggregate(20);
      feed(aggregate, full, () => chunk);
      const marker = `\n... ${1000 - 20} bytes omitted ...\n`;
      expect(aggregate.toBuffer().toString('latin1')).toBe(
        full.subarray(0, 10).toString('latin1') + marker + full.subarray(990).toString('latin1'),
      );
    }
  });
});

describe('omittedMarker', () => {
  it('OUT-4 the marker has the form "\\n... N bytes omitted ...\\n"', () => {
    expect(omittedMarker(2_097_152)).toBe('\n... 2097152 bytes omitted ...\n');
    expect(omittedMarker(1)).toBe('\n... 1 bytes omitted ...\n');
  });
});

describe('parseAggregate', () => {
  it('OUT-4 recognises the head + omitted + tail form the shell aggregate produces', () => {
    for (const total of [MiB + 1, 3 * MiB, 2 * MiB + 999]) {
      const aggregate = new HeadTailAggregate();
      aggregate.push(patternBytes(total, 7));
      const bytes = aggregate.toBuffer();
      const parsed = parseAggregate(bytes);
      expect(parsed.form).toBe('head-tail');
      if (parsed.form !== 'head-tail') continue;
      expect(parsed.headBytes).toBe(HALF);
      expect(parsed.tailBytes).toBe(HALF);
      expect(parsed.omittedBytes).toBe(total - MiB);
      expect(parsed.headBytes + parsed.omittedBytes + parsed.tailBytes).toBe(total);
      expect(parsed.bytes).toBe(bytes);
    }
  });

  it('OUT-4 reads a comma-grouped count, as in "2,097,152 bytes omitted"', () => {
    const head = Buffer.alloc(HALF, 0x61);
    const tail = Buffer.alloc(HALF, 0x62);
    const parsed = parseAggregate(Buffer.concat([head, Buffer.from('\n... 2,097,152 bytes omitted ...\n'), tail]));
    expect(parsed).toMatchObject({ form: 'head-tail', headBytes: HALF, omittedBytes: 2_097_152, tailBytes: HALF });
  });

  it('OUT-4 a small output that prints a marker-like line with unequal head and tail is plain', () => {
    const bytes = Buffer.from('building...\n... 5 bytes omitted ...\ndone, 3 warnings and a longer tail than head\n');
    const parsed = parseAggregate(bytes);
    expect(parsed.form).toBe('plain');
    expect(parsed.bytes).toBe(bytes);
  });

  it('OUT-4 an aggregate without a marker is plain, even at the 1 MiB cap (a classic cut)', () => {
    expect(parseAggregate(patternBytes(AGGREGATE_CAP_BYTES, 3)).form).toBe('plain');
    expect(parseAggregate(Buffer.from('hello\n')).form).toBe('plain');
    expect(parseAggregate(Buffer.alloc(0)).form).toBe('plain');
  });

  it('OUT-4 a marker that omits no bytes is not a truncation', () => {
    expect(parseAggregate(Buffer.from('ab\n... 0 bytes omitted ...\nab')).form).toBe('plain');
  });

  it('OUT-4 at the cap an off-centre marker is still taken as the truncation', () => {
    const head = Buffer.alloc(HALF - 100, 0x61);
    const tail = Buffer.alloc(HALF + 100, 0x62);
    const parsed = parseAggregate(Buffer.concat([head, Buffer.from(omittedMarker(5000)), tail]));
    expect(parsed).toMatchObject({
      form: 'head-tail',
      headBytes: HALF - 100,
      omittedBytes: 5000,
      tailBytes: HALF + 100,
    });
  });

  it('OUT-4 a marker-like line printed in the head does not hide the real marker', () => {
    // The head ends in text that looks like a marker but for its final newline, which the real
    // marker's leading newline completes.
    const fake = '\n... 7 bytes omitted ...';
    const head = Buffer.concat([Buffer.alloc(HALF - fake.length, 0x61), Buffer.from(fake)]);
    const tail = Buffer.alloc(HALF, 0x62);
    const parsed = parseAggregate(Buffer.concat([head, Buffer.from(omittedMarker(2_097_152)), tail]));
    expect(parsed).toMatchObject({ form: 'head-tail', headBytes: HALF, omittedBytes: 2_097_152, tailBytes: HALF });
  });

  it('OUT-4 a marker-like line printed in the tail does not hide the real marker', () => {
    const head = Buffer.alloc(HALF, 0x61);
    const tailText = '... 9 bytes omitted ...\n';
    const tail = Buffer.concat([Buffer.from(tailText), Buffer.alloc(HALF - tailText.length, 0x62)]);
    const parsed = parseAggregate(Buffer.concat([head, Buffer.from(omittedMarker(123_456)), tail]));
    expect(parsed).toMatchObject({ form: 'head-tail', headBytes: HALF, omittedBytes: 123_456, tailBytes: HALF });
  });
});
