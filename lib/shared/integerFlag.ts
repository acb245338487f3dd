import { z } from 'zod';

/** What an integer flag or variable may be: a whole number in `min`…`max`, in `unit` when it has one. */
export interface IntegerRange {
  min: number;
  max?: number;
  unit?: string;
}

/** Digits only: `1e3`, `0x10`, ` 5` and `1.5` are refused rather than read as numbers. */
const integerFlagSchema = (range: IntegerRange) =>
  z
    .string()
    .regex(/^\d+$/)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(range.min)
        .max(range.max ?? Number.MAX_SAFE_INTEGER),
    );

function expected({ min, max, unit }: IntegerRange): string {
  const bounds = max === undefined ? `at least ${min}` : `from ${min} to ${max}`;
  return unit ? `a whole number of ${unit}, ${bounds}` : `a whole number ${max === undefined ? 'of ' : ''}${bounds}`;
}

/**
 * A command-line flag's or environment variable's value as a whole number in `range`; anything
 * else throws an error that names `source` (the flag or variable) and the value given.
 */
export function parseIntegerFlag(raw: string, source: string, range: IntegerRange): number {
  const parsed = integerFlagSchema(range).safeParse(raw);
  if (!parsed.success) throw new Error(`${source} must be ${expected(range)}, not ${JSON.stringify(raw)}.`);
  return parsed.data;
}
