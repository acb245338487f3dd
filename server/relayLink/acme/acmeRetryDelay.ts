/** Delays between failed certificate attempts: doubling from `firstMs`, capped at `maxMs`. */
export interface RetryDelays {
  firstMs: number;
  maxMs: number;
}

/**
 * The delay before attempt `failures + 1`, with ±25 % jitter. NOTE: Let's Encrypt allows 5 failed
 * validations per name per hour, so the default first delay (5 min) keeps a desktop whose relay
 * does not route the CA to it under that limit.
 */
export function acmeRetryDelay(failures: number, delays: RetryDelays, random: () => number = Math.random): number {
  const base = Math.min(delays.maxMs, delays.firstMs * 2 ** Math.min(Math.max(failures - 1, 0), 20));
  return Math.round(base * (0.75 + random() * 0.5));
}
