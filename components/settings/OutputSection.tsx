'use client';
import { setFinishedOutputStart, useFinishedOutputStart } from '../../lib/client/preferences/outputStart';

/** Settings › Output: where a finished command's output opens on this device (UX-1). */
export function OutputSection() {
  const start = useFinishedOutputStart();
  return (
    <section className="card" aria-labelledby="output-settings-title">
      <h2 id="output-settings-title">Output</h2>
      <label className="setting-check">
        <input
          type="checkbox"
          checked={start === 'start'}
          onChange={(event) => setFinishedOutputStart(event.currentTarget.checked ? 'start' : 'end')}
        />
        <span>
          Open a finished command’s output at its first line
          <span className="muted setting-hint">Otherwise it opens at its end, where the result is.</span>
        </span>
      </label>
    </section>
  );
}
