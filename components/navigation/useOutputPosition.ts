'use client';
import { useEffect, useRef, type RefObject } from 'react';
import { lineIndexAtScrollTop } from '../../lib/client/output/scrollPlacement';
import type { OutputWindowState } from '../output/useOutputWindow';

/** How long the view rests before its place goes into the address: a scroll is many events. */
const SETTLE_MS = 300;

/**
 * Tells where the output viewer is, by the byte offset of the line at the top of the view
 * (UX-1: a reload or a shared link opens there again), or null while it follows the tail. Only a
 * settled view counts: while a jump reads its pages the top line is not yet the place asked for.
 */
export function useOutputPosition(
  output: OutputWindowState,
  follow: boolean,
  scrollBox: RefObject<HTMLDivElement | null>,
  onPosition: ((offset: number | null) => void) | undefined,
) {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latest = useRef({ output, follow, onPosition });
  useEffect(() => {
    latest.current = { output, follow, onPosition };
  });
  useEffect(() => () => clearTimeout(timer.current ?? undefined), []);

  function report() {
    const { output: current, follow: following, onPosition: tell } = latest.current;
    if (!tell) return;
    if (current.jumping.current || current.pendingScroll.current !== null || current.busy.current) {
      schedule();
      return;
    }
    if (following) {
      tell(null);
      return;
    }
    const top = current.lines[lineIndexAtScrollTop(scrollBox.current?.scrollTop ?? 0, current.lines.length)];
    if (top) tell(top.offset);
  }

  function schedule() {
    clearTimeout(timer.current ?? undefined);
    timer.current = setTimeout(report, SETTLE_MS);
  }

  return schedule;
}
