import type { UsageReading } from '../../../../lib/protocol/agents';
import type { HostEvent } from './hostProtocol';

/**
 * A rate_limit_event as a plan-limit reading of a Claude account (ACC-7). Claude gives the
 * window's use as a fraction and its reset in seconds; a reading without a use is no reading.
 */
export function usageReadingOf(
  event: Extract<HostEvent, { type: 'rateLimit' }>,
  accountKey: string,
  now = Date.now(),
): UsageReading | null {
  if (event.utilization === null) return null;
  return {
    agent: 'claude',
    accountKey,
    window: event.window,
    usedPercent: Math.max(0, event.utilization * 100),
    resetsAt: event.resetsAt === null ? null : Math.round(event.resetsAt * 1000),
    sampledAt: now,
  };
}
