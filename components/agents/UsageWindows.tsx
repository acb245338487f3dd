'use client';
import type { UsageReading } from '../../lib/protocol/agents';

/** "resets in 2 h 5 min", "resets in 3 d", or "reset" once the time has passed. */
export function resetsIn(resetsAt: number, now: number): string {
  const minutes = Math.round((resetsAt - now) / 60_000);
  if (minutes <= 0) return 'reset';
  if (minutes < 60) return `resets in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `resets in ${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `resets in ${Math.round(hours / 24)} d`;
}

/** An account's current plan-limit windows (ACC-7): used percent as a bar, and when each resets. */
export function UsageWindows({ readings, now = Date.now() }: { readings: UsageReading[]; now?: number }) {
  if (readings.length === 0) return <p className="muted">No plan-limit readings yet.</p>;
  return (
    <ul className="usage-windows" aria-label="Plan limits" style={{ listStyle: 'none', padding: 0, margin: '6px 0' }}>
      {readings.map((r) => (
        <li key={r.window} className="row" data-window={r.window}>
          <span style={{ minWidth: 80 }}>{r.window}</span>
          <meter min={0} max={100} value={Math.min(100, r.usedPercent)} aria-label={`${r.window} used`} />
          <span>{Math.round(r.usedPercent)}% used</span>
          {r.resetsAt !== null && <span className="muted">{resetsIn(r.resetsAt, now)}</span>}
        </li>
      ))}
    </ul>
  );
}
