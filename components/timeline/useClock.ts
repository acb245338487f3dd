'use client';
import { useEffect, useState } from 'react';
import type { TimelineRow } from '../../lib/protocol/rows';

const isRunning = (row: TimelineRow) =>
  (row.kind === 'command' && row.status === 'running') || (row.kind === 'message' && row.state === 'running');

/** The time running rows count against: ticks twice a second while something runs, still otherwise. */
export function useClock(rows: readonly TimelineRow[]): number {
  const [now, setNow] = useState(() => Date.now());
  const running = rows.some(isRunning);
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [running]);
  return now;
}
