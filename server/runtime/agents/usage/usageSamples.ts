import type { UsageReading } from '../../../../lib/protocol/agents';
import type { Db } from '../../store/database';

/** A reading this close to the newest one of its window adds nothing (ACC-7). */
export const SKIP_YOUNGER_THAN_MS = 10 * 60 * 1000;
export const SKIP_DIFFERENCE_BELOW_PERCENT = 0.5;
/** Readings older than this are deleted (ACC-7). */
export const RETENTION_MS = 35 * 24 * 60 * 60 * 1000;

interface RawSample {
  agent: UsageReading['agent'];
  account_key: string;
  window_kind: string;
  used_percent: number;
  resets_at: number | null;
  sampled_at: number;
}

const toReading = (r: RawSample): UsageReading => ({
  agent: r.agent,
  accountKey: r.account_key,
  window: r.window_kind,
  usedPercent: r.used_percent,
  resetsAt: r.resets_at,
  sampledAt: r.sampled_at,
});

/**
 * True when `reading` says nothing new over `newest` of the same window: younger than 10
 * minutes, the same reset time, and less than half a percentage point apart (ACC-7).
 */
export function isRedundant(
  newest: Pick<UsageReading, 'usedPercent' | 'resetsAt' | 'sampledAt'> | undefined,
  reading: UsageReading,
): boolean {
  if (!newest) return false;
  // Percentages arrive as decimals (12.3): compare in hundredths so 0.49 and 0.5 fall where they read.
  const hundredths = Math.round(Math.abs(reading.usedPercent - newest.usedPercent) * 100);
  return (
    reading.sampledAt - newest.sampledAt < SKIP_YOUNGER_THAN_MS &&
    reading.resetsAt === newest.resetsAt &&
    hundredths < SKIP_DIFFERENCE_BELOW_PERCENT * 100
  );
}

/** agent_usage_samples: plan-limit readings of both agents, per account and window (ACC-7). */
export class UsageSamples {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      newest: db.prepare<[string, string, string], RawSample>(
        'SELECT * FROM agent_usage_samples WHERE agent = ? AND account_key = ? AND window_kind = ? ORDER BY sampled_at DESC, id DESC LIMIT 1',
      ),
      insert: db.prepare(
        'INSERT INTO agent_usage_samples (agent, account_key, window_kind, used_percent, resets_at, sampled_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      purge: db.prepare('DELETE FROM agent_usage_samples WHERE sampled_at < ?'),
      current: db.prepare<[], RawSample>(
        `SELECT s.* FROM agent_usage_samples s
         WHERE s.id = (SELECT t.id FROM agent_usage_samples t WHERE t.agent = s.agent AND t.account_key = s.account_key AND t.window_kind = s.window_kind
                       ORDER BY t.sampled_at DESC, t.id DESC LIMIT 1)
         ORDER BY s.agent, s.account_key, s.window_kind`,
      ),
    };
  }

  /** Stores the reading unless it is redundant; returns whether it was stored. Old readings go. */
  record(reading: UsageReading): boolean {
    return this.db.transaction(() => {
      this.purge(reading.sampledAt);
      const newest = this.stmts.newest.get(reading.agent, reading.accountKey, reading.window);
      if (isRedundant(newest && toReading(newest), reading)) return false;
      this.stmts.insert.run(
        reading.agent,
        reading.accountKey,
        reading.window,
        reading.usedPercent,
        reading.resetsAt,
        reading.sampledAt,
      );
      return true;
    })();
  }

  /** Deletes readings older than 35 days before `now`. */
  purge(now = Date.now()): number {
    return this.stmts.purge.run(now - RETENTION_MS).changes;
  }

  /** The newest reading of each window, of one account or of every account. */
  current(agent?: UsageReading['agent'], accountKey?: string): UsageReading[] {
    return this.stmts.current
      .all()
      .map(toReading)
      .filter(
        (r) => (agent === undefined || r.agent === agent) && (accountKey === undefined || r.accountKey === accountKey),
      );
  }
}
