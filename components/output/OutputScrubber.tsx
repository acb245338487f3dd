'use client';
import { SCRUBBER_STEPS } from '../../lib/client/output/scrubberScale';

/** The slider beside the output: where the view is in the whole output, by bytes (PWA-2). */
export function OutputScrubber({ position, onScrub }: { position: number; onScrub: (position: number) => void }) {
  return (
    <input
      type="range"
      className="scrubber"
      aria-label="Position in output"
      min={0}
      max={SCRUBBER_STEPS}
      value={position}
      onChange={(e) => onScrub(Number(e.target.value))}
    />
  );
}
