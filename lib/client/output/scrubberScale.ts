/**
 * The output scrubber's scale (PWA-2): a position is a fraction of the output's bytes, so the same
 * slider covers 1 KiB and 10 GiB and a jump goes straight to a byte offset.
 */
export const SCRUBBER_STEPS = 10_000;

/** The position showing `offset` (the line at the top of the view); 0 before anything is shown. */
export function scrubberPositionOf(offset: number | undefined, totalBytes: number): number {
  return totalBytes > 0 && offset !== undefined ? Math.round((offset / totalBytes) * SCRUBBER_STEPS) : 0;
}

/** The byte offset a scrubber position stands for. */
export function offsetAtScrubberPosition(position: number, totalBytes: number): number {
  return Math.floor((position / SCRUBBER_STEPS) * totalBytes);
}
