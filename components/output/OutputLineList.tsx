'use client';
import type { RefObject } from 'react';
import { LINE_HEIGHT } from '../../lib/client/output/scrollPlacement';
import type { OutputLine } from '../../lib/client/outputWindow';
import { OutputLineView } from '../OutputLines';
import type { VirtualLines } from './useVirtualLines';

interface OutputLineListProps {
  scrollBox: RefObject<HTMLDivElement | null>;
  lines: OutputLine[];
  list: VirtualLines;
  wrap: boolean;
  query: string;
  onScroll: (view: HTMLDivElement) => void;
}

/**
 * The scrolling box of the window's lines (PWA-2): only the virtualizer's lines are in the DOM,
 * each with the byte offset it starts at; the box tells which offsets the window spans.
 */
export function OutputLineList({ scrollBox, lines, list, wrap, query, onScroll }: OutputLineListProps) {
  const { virtualizer, items, segments } = list;
  return (
    <div
      ref={scrollBox}
      onScroll={(e) => onScroll(e.currentTarget)}
      className="scroll mono output"
      style={{ padding: 0 }}
      data-testid="output"
      data-window-start={lines[0]?.offset ?? 0}
      data-window-end={lines.length > 0 ? lines[lines.length - 1]!.offset : 0}
      tabIndex={0}
      aria-label="Command output"
    >
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => (
          <div
            key={item.key}
            ref={wrap ? virtualizer.measureElement : undefined}
            data-index={item.index}
            data-line={item.index}
            data-offset={lines[item.index]?.offset}
            className="output-line"
            style={{
              position: 'absolute',
              top: 0,
              left: 0,
              right: 0,
              minHeight: LINE_HEIGHT,
              height: wrap ? undefined : LINE_HEIGHT,
              transform: `translateY(${item.start}px)`,
              whiteSpace: wrap ? 'pre-wrap' : 'pre',
              wordBreak: wrap ? 'break-all' : undefined,
            }}
          >
            <OutputLineView segments={segments[item.index] ?? []} query={query} />
          </div>
        ))}
      </div>
    </div>
  );
}
