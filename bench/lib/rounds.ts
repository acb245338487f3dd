export const median = (values: readonly number[]): number => percentile(values, 0.5);

/** Linear interpolation between the closest ranks. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (sorted.length - 1) * p;
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

type Contenders = Record<string, (round: number) => Promise<unknown>>;
type RoundResults<C extends Contenders> = { [K in keyof C]: Awaited<ReturnType<C[K]>>[] };

/**
 * Runs every contender once per round, rotating who goes first so no contender always gets the
 * warmest (or the most fragmented) machine. Contenders run one at a time, never concurrently.
 */
export async function rotateRounds<C extends Contenders>(
  rounds: number,
  contenders: C,
  progress: (line: string) => void,
  describe: (value: Awaited<ReturnType<C[keyof C]>>) => string,
): Promise<RoundResults<C>> {
  const keys = Object.keys(contenders) as (keyof C & string)[];
  const results = Object.fromEntries(keys.map((k) => [k, []])) as unknown as RoundResults<C>;
  for (let round = 0; round < rounds; round++) {
    const order = keys.map((_, i) => keys[(i + round) % keys.length]!);
    for (const key of order) {
      const value = (await contenders[key]!(round)) as Awaited<ReturnType<C[keyof C]>>;
      results[key].push(value);
      progress(`  round ${round + 1}/${rounds} ${key}: ${describe(value)}`);
    }
  }
  return results;
}

export const now = () => performance.now();
