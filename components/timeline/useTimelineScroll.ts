'use client';
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
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

/** The row at the top of the view, how far its top is from the view's top, and the scroll position it was taken at. */
interface Anchor {
  key: string;
  offset: number;
  scrollTop: number;
}

function anchorAt(virtualizer: Virtualizer<HTMLDivElement, Element>, scrollTop: number): Anchor | null {
  const item = virtualizer.measurementsCache.find((m) => m.end > scrollTop);
  return item ? { key: String(item.key), offset: item.start - scrollTop, scrollTop } : null;
}

/**
 * The timeline's rows virtualized (TL-4): it opens at the newest rows and stays at the end while
 * new ones arrive; scrolling near the top loads the older page. The row at the top of the view
 * stays where it is whatever changes size or lands above it: older rows arrive with estimated
 * heights and are measured as they render, so the view is re-placed on that row after every
 * change, not moved by the sum of guesses.
 */
export function useTimelineScroll({ entries, scrollBox, hasOlder, loadingOlder, onLoadOlder }: TimelineScrollOptions) {
  const atEnd = useRef(true);
  /** Where keeping the view at the end last put it (read back, so clamped); null before the first time. */
  const pinnedTop = useRef<number | null>(null);
  const anchor = useRef<Anchor | null>(null);
  const keepPlace = useRef<() => void>(() => {});
  /** Index of each row by key, for finding the anchor's row in one step. */
  const keyIndex = useRef(new Map<string, number>());

  const virtualizer = useVirtualizer({
    count: entries.length,
    getScrollElement: () => scrollBox.current,
    estimateSize: () => ESTIMATED_ROW_PX,
    overscan: 8,
    scrollMargin: OLDER_BAR_PX,
    // TL-4: rendering the rows a scroll brings into view inside the scroll event (flushSync) made
    // the event, React's commit and the new rows' layout one long task; rendered in a task of its
    // own, scrolling and rendering each stay short.
    useFlushSync: false,
    getItemKey: (index) => entries[index]?.key ?? index,
    onChange: (_instance, scrolling) => {
      if (!scrolling) keepPlace.current();
    },
  });
  // NOTE: the list keeps its place itself (keepPlace); the virtualizer's own adjustment would move it twice.
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = () => false;

  // Layout effects, declared before the one that calls keepPlace: they must see this render's rows.
  useLayoutEffect(() => {
    keyIndex.current = new Map(entries.map((entry, index) => [entry.key, index]));
  }, [entries]);
  useLayoutEffect(() => {
    keepPlace.current = () => {
      const box = scrollBox.current;
      if (!box) return;
      if (atEnd.current) {
        // Scrolled up since the view was kept at the end (the scroll event is still to come): the
        // person's scroll wins. A view that only got clamped by shorter content is still at the end.
        const pinned = pinnedTop.current;
        if (pinned !== null && box.scrollTop < pinned - 1 && box.scrollHeight - box.scrollTop - box.clientHeight > 1) {
          atEnd.current = false;
          anchor.current = anchorAt(virtualizer, box.scrollTop);
          return;
        }
        box.scrollTop = box.scrollHeight;
        pinnedTop.current = box.scrollTop;
        return;
      }
      const kept = anchor.current;
      if (!kept) return;
      const scrollTop = box.scrollTop;
      // Scrolled since the anchor was taken (the scroll event is still to come): where it is now wins.
      if (Math.abs(scrollTop - kept.scrollTop) > 1) {
        anchor.current = anchorAt(virtualizer, scrollTop);
        return;
      }
      const keys = keyIndex.current;
      const item = virtualizer.measurementsCache[keys.get(kept.key) ?? -1];
      if (!item) return;
      const top = item.start - kept.offset;
      if (Math.abs(scrollTop - top) <= 1) return;
      box.scrollTop = top;
      // NOTE: not read back (that would lay the page out again); a clamped position shows as "scrolled since" next time.
      kept.scrollTop = top;
    };
  });

  const total = virtualizer.getTotalSize();
  useLayoutEffect(() => keepPlace.current(), [entries, total]);

  const maybeLoadOlder = useCallback(() => {
    const box = scrollBox.current;
    if (box && hasOlder && !loadingOlder && box.scrollTop < LOAD_OLDER_MARGIN_PX) onLoadOlder();
  }, [scrollBox, hasOlder, loadingOlder, onLoadOlder]);

  // A first page that does not fill the screen asks for the one before it at once.
  useEffect(maybeLoadOlder, [maybeLoadOlder, total]);

  const onScroll = useCallback(() => {
    const box = scrollBox.current;
    if (!box) return;
    const fromEnd = box.scrollHeight - box.scrollTop - box.clientHeight;
    const pinned = pinnedTop.current;
    // TL-4: the event of a scroll this hook made to the end can come after rows below were measured
    // taller; the view did not move up, so it stays at the end and is put there again.
    if (atEnd.current && pinned !== null && box.scrollTop >= pinned - 1) {
      if (fromEnd > 1) keepPlace.current();
    } else {
      atEnd.current = fromEnd < AT_END_PX;
      pinnedTop.current = atEnd.current ? box.scrollTop : null;
    }
    anchor.current = anchorAt(virtualizer, box.scrollTop);
    maybeLoadOlder();
  }, [scrollBox, virtualizer, maybeLoadOlder]);

  return { virtualizer, total, onScroll };
}
