import { seededRandom } from '../../tests/fixtures/seededRandom';

export { seededRandom };

/** A uniformly random integer in [min, max]. */
export const randomInt = (random: () => number, min: number, max: number) =>
  min + Math.floor(random() * (max - min + 1));

/** A pool of incompressible bytes that deltas are cut from, generated once before any timing. */
export function randomPool(bytes: number, random: () => number): Buffer {
  const pool = Buffer.allocUnsafe(bytes);
  for (let i = 0; i + 4 <= bytes; i += 4) pool.writeUInt32LE(Math.floor(random() * 4294967296), i);
  for (let i = bytes - (bytes % 4); i < bytes; i++) pool[i] = Math.floor(random() * 256);
  return pool;
}

/** Where each delta of a stream sits in the pool. The sizes add up to exactly `totalBytes`. */
export interface DeltaPlan {
  pool: Buffer;
  offsets: Uint32Array;
  lengths: Uint32Array;
  totalBytes: number;
}

export function planDeltas(options: {
  pool: Buffer;
  totalBytes: number;
  minBytes: number;
  maxBytes: number;
  random: () => number;
}): DeltaPlan {
  const { pool, totalBytes, minBytes, maxBytes, random } = options;
  const offsets: number[] = [];
  const lengths: number[] = [];
  for (let planned = 0; planned < totalBytes;) {
    // The last delta is whatever is left, so the stream is exactly totalBytes long.
    const length = Math.min(randomInt(random, minBytes, maxBytes), totalBytes - planned);
    offsets.push(randomInt(random, 0, pool.length - length));
    lengths.push(length);
    planned += length;
  }
  return { pool, offsets: Uint32Array.from(offsets), lengths: Uint32Array.from(lengths), totalBytes };
}

/** The i-th delta: a view into the pool, so producing it costs nothing. */
export const deltaAt = (plan: DeltaPlan, i: number): Buffer =>
  plan.pool.subarray(plan.offsets[i]!, plan.offsets[i]! + plan.lengths[i]!);
