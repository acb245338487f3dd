/** Reconnect delays: exponential from 500 ms, capped at 15 s, with jitter so tabs do not stampede. */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(15_000, 500 * 2 ** Math.min(attempt, 5));
  return Math.round(base * (0.75 + random() * 0.5));
}
