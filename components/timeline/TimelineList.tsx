'use client';
import '../files/files.css';
import './timeline.css';
import { useRef, type ReactNode } from 'react';
import type { RowContext } from './rowContext';
import type { TimelineEntry } from './shellCards';
import { TimelineRowView } from './TimelineRowView';
import { useRowReveal } from './useRowReveal';
import { OLDER_BAR_PX, useTimelineScroll } from './useTimelineScroll';

/** `.timeline-item`'s padding-bottom: the gap below each row, part of its measured size. */
const ROW_GAP_PX = 10;

export interface TimelineListProps {
  entries: TimelineEntry[];
  context: RowContext;
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => void;
  /** Shown after the rows, inside the same scrolling box (approvals, the outbox). */
  footer?: ReactNode;
  label?: string;
}

/** Every row kind of a timeline in one virtualized, scrolling list (TL-1, TL-4). */
export function TimelineList({
  entries,
  context,
  hasOlder,
  loadingOlder,
  onLoadOlder,
  footer,
  label = 'Timeline',
}: TimelineListProps) {
  const scrollBox = useRef<HTMLDivElement>(null);
  const { virtualizer, total, onScroll } = useTimelineScroll({
    entries,
    scrollBox,
    hasOlder,
    loadingOlder,
    onLoadOlder,
  });
  const items = virtualizer.getVirtualItems();
  const viewTop = virtualizer.scrollOffset ?? 0;
  const shows = useRowReveal(items, viewTop, viewTop + (virtualizer.scrollRect?.height ?? 0));
  return (
    <div
      ref={scrollBox}
      className="scroll timeline-scroll"
      aria-label={label}
      role="log"
      onScroll={onScroll}
      data-testid="timeline"
    >
      <div className="timeline-older muted" style={{ height: OLDER_BAR_PX }}>
        {loadingOlder ? (
          <span role="status">Loading older rows…</span>
        ) : hasOlder ? (
          <button type="button" onClick={onLoadOlder}>
            Load older rows
          </button>
        ) : (
          <span>Start of the session</span>
        )}
      </div>
      <div className="timeline-rows" style={{ height: total }}>
        {items.map((item) => {
          const entry = entries[item.index];
          if (!entry) return null;
          const shown = shows(entry.key);
          return (
            <div
              key={item.key}
              ref={virtualizer.measureElement}
              data-index={item.index}
              data-row-id={entry.key}
              data-pending={shown ? undefined : ''}
              className="timeline-item"
              style={{ transform: `translateY(${item.start - OLDER_BAR_PX}px)` }}
            >
              {shown ? (
                <TimelineRowView row={entry.row} command={entry.command} context={context} />
              ) : (
                <div className="card timeline-placeholder" style={{ height: Math.max(0, item.size - ROW_GAP_PX) }} />
              )}
            </div>
          );
        })}
      </div>
      {footer}
    </div>
  );
}
