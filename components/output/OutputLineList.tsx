'use client';
import type { ClipboardEvent, RefObject } from 'react';
import { LINE_HEIGHT } from '../../lib/client/output/scrollPlacement';
import type { OutputLine } from '../../lib/client/output/outputWindow';
import { OutputLineView } from '../OutputLines';
import type { VirtualLines } from './useVirtualLines';

interface OutputLineListProps {
  scrollBox: RefObject<HTMLDivElement | null>;
  lines: OutputLine[];
  list: VirtualLines;
  wrap: boolean;
  query: string;
  onScroll: (view: HTMLDivElement) => void;
  /** The stored bytes behind lines[first..last] as text, or null when the window lost them. */
  storedText: (first: number, last: number) => string | null;
}

/** The line (its `data-line`) a selection's end is in, or null outside the lines. */
function lineIndexOf(node: Node | null, box: HTMLElement): number | null {
  const element = node instanceof Element ? node : node?.parentElement;
  const line = element?.closest<HTMLElement>('[data-line]');
  return line && box.contains(line) ? Number(line.dataset.line) : null;
}

/**
 * A selection over several lines copies the stored bytes of those whole lines (UX-2), so what
 * is pasted is what the command printed; a selection inside one line copies the text it shows.
 */
function copyStoredLines(event: ClipboardEvent<HTMLDivElement>, storedText: OutputLineListProps['storedText']) {
  const selection = document.getSelection();
  if (!selection || selection.isCollapsed) return;
  const anchor = lineIndexOf(selection.anchorNode, event.currentTarget);
  const focus = lineIndexOf(selection.focusNode, event.currentTarget);
  if (anchor === null || focus === null || anchor === focus) return;
  const text = storedText(Math.min(anchor, focus), Math.max(anchor, focus));
  if (text === null) return;
  event.preventDefault();
  event.clipboardData.setData('text/plain', text);
}

/**
 * The scrolling box of the window's lines (PWA-2): only the virtualizer's lines are in the DOM,
 * each with the byte range that made it; the box tells which offsets the window spans.
 */
export function OutputLineList({ scrollBox, lines, list, wrap, query, onScroll, storedText }: OutputLineListProps) {
  const { virtualizer, items } = list;
  return (
    <div
      ref={scrollBox}
      onScroll={(e) => onScroll(e.currentTarget)}
      onCopy={(e) => copyStoredLines(e, storedText)}
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
            data-end={lines[item.index]?.end}
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
            <OutputLineView segments={lines[item.index]?.segments ?? []} query={query} />
          </div>
        ))}
      </div>
    </div>
  );
}
