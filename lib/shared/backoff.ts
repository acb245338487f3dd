/** How a backoff grows: doubling from `firstMs`, never past `maxMs`. */
export interface BackoffShape {
  firstMs: number;
  maxMs: number;
}

/** The app's reconnect delays (PWA-4): from 500 ms, capped at 15 s. */
export const APP_RECONNECT_BACKOFF: BackoffShape = { firstMs: 500, maxMs: 15_000 };

/**
 * The wait before retry number `attempt` (0 first): exponential, capped, with ±25 % jitter so
 * clients that lost the same server do not all come back at once. The one backoff of the app, the
 * runtime and the relay link: any realm may import it.
 */
export function backoffDelay(attempt: number, shape: BackoffShape, random: () => number = Math.random): number {
  // NOTE: the exponent is bounded so a long outage's attempt count cannot overflow to Infinity.
  const base = Math.min(shape.maxMs, shape.firstMs * 2 ** Math.min(attempt, 30));
  return Math.round(base * (0.75 + random() * 0.5));
}
