'use client';
import { useEffect, useState } from 'react';
import { offsetAtScrubberPosition, SCRUBBER_STEPS, scrubberPositionOf } from '../../lib/client/output/scrubberScale';
import type { ScrollAlign } from '../../lib/client/output/scrollPlacement';

interface ScrubberInput {
  total: number;
  /** The offset of the line at the top of the view, which the scrubber shows while at rest. */
  topOffset: number | undefined;
  /** The view shows the output's last line: the scrubber rests at its end. */
  showsEnd: boolean;
  jumpTo: (offset: number, align: ScrollAlign) => Promise<void>;
  /** Called just before the scrubber jumps. */
  onJump: () => void;
}

/**
 * The scrubber (PWA-2): a position in the whole output by bytes. It commits a position once it
 * rests for a moment (a drag, keys or a typed value) and jumps to that byte offset.
 */
export function useOutputScrubber({ total, topOffset, showsEnd, jumpTo, onJump }: ScrubberInput) {
  const [scrubbing, setScrubbing] = useState<number | null>(null);

  useEffect(() => {
    if (scrubbing === null) return;
    const timer = setTimeout(() => {
      onJump();
      void jumpTo(offsetAtScrubberPosition(scrubbing, total), 'start').finally(() => setScrubbing(null));
    }, 250);
    return () => clearTimeout(timer);
    // NOTE: `onJump` is not a dependency: a new one comes with every render, and each would restart the rest.
  }, [scrubbing, jumpTo, total]);

  const position = scrubbing ?? (showsEnd && total > 0 ? SCRUBBER_STEPS : scrubberPositionOf(topOffset, total));
  return { scrubbing, setScrubbing, position };
}
