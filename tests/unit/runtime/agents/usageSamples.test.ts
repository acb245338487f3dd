import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UsageReading } from '../../../../lib/protocol/agents';
import { RETENTION_MS, UsageSamples } from '../../../../server/runtime/agents/usage/usageSamples';
import { MIGRATIONS_DIR } from '../../../../server/runtime/paths';
import { openDatabase, type Db } from '../../../../server/runtime/store/database';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);
const RESET = T0 + 5 * 60 * MINUTE;

describe('plan-limit readings in agent_usage_samples (ACC-7)', () => {
  let dir: string;
  let db: Db;
  let usage: UsageSamples;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-usage-'));
    db = openDatabase(path.join(dir, 'hbcode.db'), MIGRATIONS_DIR);
    usage = new UsageSamples(db);
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const reading = (over: Partial<UsageReading>): UsageReading => ({
    agent: 'codex',
    accountKey: 'p1',
    window: 'primary',
    usedPercent: 10,
    resetsAt: RESET,
    sampledAt: T0,
    ...over,
  });
  const count = () => db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM agent_usage_samples').get()!.n;

  it('ACC-7 a reading 9:59 after the newest is skipped; at 10:00 it is stored', () => {
    expect(usage.record(reading({}))).toBe(true);
    expect(usage.record(reading({ sampledAt: T0 + 10 * MINUTE - 1000, usedPercent: 10.2 }))).toBe(false);
    expect(usage.record(reading({ sampledAt: T0 + 10 * MINUTE, usedPercent: 10.2 }))).toBe(true);
    expect(count()).toBe(2);
  });

  it('ACC-7 a difference of 0.49 points is skipped; 0.5 is stored (both directions)', () => {
    usage.record(reading({ usedPercent: 40 }));
    expect(usage.record(reading({ sampledAt: T0 + MINUTE, usedPercent: 40.49 }))).toBe(false);
    expect(usage.record(reading({ sampledAt: T0 + MINUTE, usedPercent: 39.51 }))).toBe(false);
    expect(usage.record(reading({ sampledAt: T0 + MINUTE, usedPercent: 40.5 }))).toBe(true);
    expect(usage.record(reading({ sampledAt: T0 + 2 * MINUTE, usedPercent: 40 }))).toBe(true);
  });

  it('ACC-7 a changed reset time is stored at once, also with the same percentage', () => {
    usage.record(reading({}));
    expect(usage.record(reading({ sampledAt: T0 + MINUTE, resetsAt: RESET + 1000 }))).toBe(true);
    expect(usage.record(reading({ sampledAt: T0 + 2 * MINUTE, resetsAt: null }))).toBe(true);
    expect(usage.record(reading({ sampledAt: T0 + 3 * MINUTE, resetsAt: null }))).toBe(false);
  });

  it('ACC-7 windows and accounts are compared separately', () => {
    usage.record(reading({}));
    expect(usage.record(reading({ window: 'secondary' }))).toBe(true);
    expect(usage.record(reading({ accountKey: 'p2' }))).toBe(true);
    expect(usage.record(reading({ agent: 'claude', accountKey: 'default', window: 'five_hour' }))).toBe(true);
  });

  it('ACC-7 a reading exactly 35 days old stays; one a millisecond older is deleted', () => {
    usage.record(reading({ window: 'kept', sampledAt: T0 }));
    usage.record(reading({ window: 'dropped', sampledAt: T0 - 1 }));
    usage.record(reading({ window: 'other', sampledAt: T0 + RETENTION_MS }));
    expect(usage.current().map((r) => r.window)).toEqual(['kept', 'other']);
  });

  it('ACC-7 current() is the newest reading of each window of an account', () => {
    usage.record(reading({ usedPercent: 10 }));
    usage.record(reading({ usedPercent: 30, sampledAt: T0 + 20 * MINUTE }));
    usage.record(reading({ window: 'secondary', usedPercent: 5 }));
    usage.record(reading({ accountKey: 'p2', usedPercent: 90 }));
    expect(usage.current('codex', 'p1').map((r) => [r.window, r.usedPercent])).toEqual([
      ['primary', 30],
      ['secondary', 5],
    ]);
    expect(usage.current('codex').length).toBe(3);
  });
});
