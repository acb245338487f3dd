'use client';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { RefObject } from 'react';
import { LINE_HEIGHT } from '../../lib/client/output/scrollPlacement';
import type { OutputLine } from '../../lib/client/output/outputWindow';

/**
 * The window's lines (rendered as a terminal shows them, UX-2), virtualized (PWA-2): only the lines near the view are
 * rendered, one height each unless wrapped (then each is measured).
 */
export function useVirtualLines(lines: OutputLine[], wrap: boolean, scrollBox: RefObject<HTMLDivElement | null>) {
  const virtualizer = useVirtualizer({
    count: lines.length,
    getScrollElement: () => scrollBox.current,
    estimateSize: () => LINE_HEIGHT,
    overscan: 40,
    measureElement: wrap ? (element) => element.getBoundingClientRect().height : undefined,
  });

  const items = virtualizer.getVirtualItems();
  const firstIndex = items[0]?.index ?? 0;
  const lastIndex = items[items.length - 1]?.index ?? 0;
  return { virtualizer, items, firstIndex, lastIndex };
}

export type VirtualLines = ReturnType<typeof useVirtualLines>;
