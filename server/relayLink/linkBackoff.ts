/**
 * How long the desktop waits before linking to the relay again: exponential from half a second,
 * capped at 30 s, with ±25 % jitter so desktops whose relay node restarted do not all come back
 * at once (RLY-4). Like the app's reconnect delays (server/ may not import the client's module).
 */
export function relayReconnectDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(30_000, 500 * 2 ** Math.min(attempt, 6));
  return Math.round(base * (0.75 + random() * 0.5));
}
