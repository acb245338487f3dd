'use client';
import { SCRUBBER_STEPS } from '../../lib/client/output/scrubberScale';

/**
 * The slider beside the output: where the view is in the whole output, by bytes (PWA-2). A
 * horizontal range turned upright in a track as tall as the view (see `.scrubber` in
 * app/globals.css): every engine draws a horizontal range, while WebKit drew one asked for with
 * `writing-mode: vertical-lr` as a short horizontal thumb clipped at the edge.
 */
export function OutputScrubber({ position, onScrub }: { position: number; onScrub: (position: number) => void }) {
  return (
    <div className="scrubber-track">
      <input
        type="range"
        className="scrubber"
        aria-label="Position in output"
        aria-orientation="vertical"
        min={0}
        max={SCRUBBER_STEPS}
        value={position}
        onChange={(e) => onScrub(Number(e.target.value))}
      />
    </div>
  );
}
