import { describe, expect, it } from 'vitest';
import {
  offsetAtScrubberPosition,
  SCRUBBER_STEPS,
  scrubberPositionOf,
} from '../../../../lib/client/output/scrubberScale';

describe('output scrubber scale (PWA-2)', () => {
  it('PWA-2 a position is a fraction of the bytes, for a small and a 10 GiB output alike', () => {
    const tenGiB = 10 * 1024 ** 3;
    expect(scrubberPositionOf(tenGiB / 2, tenGiB)).toBe(SCRUBBER_STEPS / 2);
    expect(offsetAtScrubberPosition(SCRUBBER_STEPS / 4, tenGiB)).toBe(tenGiB / 4);
    expect(offsetAtScrubberPosition(SCRUBBER_STEPS, 1000)).toBe(1000);
    expect(offsetAtScrubberPosition(1, 1000)).toBe(0);
    expect(scrubberPositionOf(333, 1000)).toBe(3330);
  });

  it('PWA-2 the scrubber rests at 0 before anything is shown', () => {
    expect(scrubberPositionOf(undefined, 1000)).toBe(0);
    expect(scrubberPositionOf(0, 0)).toBe(0);
  });
});
