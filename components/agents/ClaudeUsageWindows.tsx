import type { UsageReading } from '../../lib/protocol/agents';

const WINDOW_NAMES: Record<string, string> = {
  five_hour: '5-hour limit',
  seven_day: 'Weekly limit',
  seven_day_opus: 'Weekly Opus limit',
  seven_day_sonnet: 'Weekly Sonnet limit',
};

/** The plan-limit windows of one account (ACC-7): how much is used and when it resets. */
export function ClaudeUsageWindows({ usage }: { usage: UsageReading[] }) {
  if (usage.length === 0)
    return (
      <div className="muted">No plan-limit reading yet (they come with the first turn of a subscription account).</div>
    );
  return (
    <ul style={{ listStyle: 'none', padding: 0, margin: '6px 0' }} aria-label="Plan limits">
      {usage.map((reading) => (
        <li key={reading.window} data-window={reading.window} style={{ marginBottom: 4 }}>
          <div className="row" style={{ justifyContent: 'space-between' }}>
            <span>{WINDOW_NAMES[reading.window] ?? reading.window}</span>
            <span className="muted">
              {Math.round(reading.usedPercent)}% used
              {reading.resetsAt ? ` · resets ${new Date(reading.resetsAt).toLocaleString()}` : ''}
            </span>
          </div>
          <meter
            min={0}
            max={100}
            value={Math.min(100, reading.usedPercent)}
            style={{ width: '100%' }}
            aria-label={`${reading.window} used`}
          />
        </li>
      ))}
    </ul>
  );
}
