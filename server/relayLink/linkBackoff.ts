import { backoffDelay, type BackoffShape } from '../../lib/shared/backoff';

/**
 * How long the desktop waits before linking to the relay again: exponential from half a second,
 * capped at 30 s, with the shared backoff's ±25 % jitter so desktops whose relay node restarted do
 * not all come back at once (RLY-4).
 */
export const RELAY_RECONNECT_BACKOFF: BackoffShape = { firstMs: 500, maxMs: 30_000 };

export function relayReconnectDelay(attempt: number, random: () => number = Math.random): number {
  return backoffDelay(attempt, RELAY_RECONNECT_BACKOFF, random);
}
