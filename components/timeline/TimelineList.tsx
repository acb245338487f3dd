'use client';
import '../files/files.css';
import './timeline.css';
import { useRef, type ReactNode } from 'react';
import type { RowContext } from './rowContext';
import type { TimelineEntry } from './shellCards';
import { TimelineRowView } from './TimelineRowView';
import { OLDER_BAR_PX, useTimelineScroll } from './useTimelineScroll';

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
export function TimelineList({ entries, context, hasOlder, loadingOlder, onLoadOlder, footer, label = 'Timeline' }: TimelineListProps) {
  const scrollBox = useRef<HTMLDivElement>(null);
  const { virtualizer, total, onScroll } = useTimelineScroll({ entries, scrollBox, hasOlder, loadingOlder, onLoadOlder });
  return (
    <div ref={scrollBox} className="scroll timeline-scroll" aria-label={label} role="log" onScroll={onScroll} data-testid="timeline">
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
        {virtualizer.getVirtualItems().map((item) => {
          const entry = entries[item.index];
          if (!entry) return null;
          return (
            <div key={item.key} ref={virtualizer.measureElement} data-index={item.index} data-row-id={entry.key} className="timeline-item" style={{ transform: `translateY(${item.start - OLDER_BAR_PX}px)` }}>
              <TimelineRowView row={entry.row} command={entry.command} context={context} />
            </div>
          );
        })}
      </div>
      {footer}
    </div>
  );
}
