'use client';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef, type RefObject } from 'react';
import type { TimelineEntry } from './shellCards';

/** The bar above the rows ("Load older rows", "Start of the session"): always this tall, so row offsets need no measuring of it. */
export const OLDER_BAR_PX = 56;
/** A first guess of a row's height; each is measured once rendered. */
const ESTIMATED_ROW_PX = 96;
/** Older rows are asked for when the view comes this close to the top. */
const LOAD_OLDER_MARGIN_PX = 800;
/** Closer than this to the end counts as at the end: new rows keep the view there. */
const AT_END_PX = 80;

export interface TimelineScrollOptions {
  entries: TimelineEntry[];
  scrollBox: RefObject<HTMLDivElement | null>;
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => void;
}

/**
 * The timeline's rows virtualized (TL-4): it opens at the newest rows and stays at the end while
 * new ones arrive; scrolling near the top loads the older page, and the rows in view stay where
 * they are when it lands above them.
 */
export function useTimelineScroll({ entries, scrollBox, hasOlder, loadingOlder, onLoadOlder }: TimelineScrollOptions) {
  const atEnd = useRef(true);
  const firstKey = useRef<string | null>(null);
  const totalBefore = useRef(0);

  const virtualizer = useVirtualizer({
    count: entries.length,
    getScrollElement: () => scrollBox.current,
    estimateSize: () => ESTIMATED_ROW_PX,
    overscan: 4,
    scrollMargin: OLDER_BAR_PX,
    getItemKey: (index) => entries[index]?.key ?? index,
    // A row measured taller while the view follows the end (streaming text) keeps the end in view.
    onChange: (instance) => {
      const box = scrollBox.current;
      if (box && atEnd.current && !instance.isScrolling) box.scrollTop = box.scrollHeight;
    },
  });

  const total = virtualizer.getTotalSize();
  useLayoutEffect(() => {
    const box = scrollBox.current;
    if (!box) return;
    const previousFirst = firstKey.current;
    firstKey.current = entries[0]?.key ?? null;
    const grewAbove = previousFirst !== null && previousFirst !== firstKey.current && entries.some((e) => e.key === previousFirst);
    if (atEnd.current) box.scrollTop = box.scrollHeight;
    // NOTE: older rows land above the view with estimated heights; moving by what the list grew keeps the rows in view still.
    else if (grewAbove) box.scrollTop += total - totalBefore.current;
    totalBefore.current = total;
  }, [entries, total, scrollBox]);

  const maybeLoadOlder = useCallback(() => {
    const box = scrollBox.current;
    if (box && hasOlder && !loadingOlder && box.scrollTop < LOAD_OLDER_MARGIN_PX) onLoadOlder();
  }, [scrollBox, hasOlder, loadingOlder, onLoadOlder]);

  // A first page that does not fill the screen asks for the one before it at once.
  useEffect(maybeLoadOlder, [maybeLoadOlder, total]);

  const onScroll = useCallback(() => {
    const box = scrollBox.current;
    if (!box) return;
    atEnd.current = box.scrollHeight - box.scrollTop - box.clientHeight < AT_END_PX;
    maybeLoadOlder();
  }, [scrollBox, maybeLoadOlder]);

  return { virtualizer, total, onScroll };
}
