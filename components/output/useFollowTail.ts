'use client';
import { useRef, useState } from 'react';
import { isAtBottom } from '../../lib/client/output/scrollPlacement';
import type { CommandRow } from '../../lib/protocol/rows';
import type { OutputWindowState } from './useOutputWindow';

/**
 * Whether the view follows a running command's tail (PWA-2): it does from the start (unless an
 * address asks for a place, UX-1), stops when
 * the user scrolls up and starts again at the bottom. The reads that follow are in useWindowReads.
 */
export function useFollowTail(output: OutputWindowState, row: CommandRow, startsFollowing = !row.complete) {
  const [follow, setFollow] = useState(startsFollowing);
  const lastScrollTop = useRef(0);

  function onScroll(view: HTMLDivElement) {
    // NOTE: only a scroll up by the user stops following. Output growing below the view, and the
    // viewer's own scrolls, leave the view short of the bottom for a frame without meaning "stop".
    const movedUp = view.scrollTop < lastScrollTop.current - 1;
    lastScrollTop.current = view.scrollTop;
    const atBottom = isAtBottom(view);
    if (follow && movedUp && !atBottom && !output.jumping.current && output.pendingScroll.current === null)
      setFollow(false);
    if (!follow && atBottom && output.win.current.atEnd && !row.complete) setFollow(true);
  }

  return { follow, setFollow, onScroll };
}
