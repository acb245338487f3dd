'use client';
import { useCallback, useLayoutEffect, type RefObject } from 'react';
import { LINE_HEIGHT, lineIndexAt, scrollTopFor } from '../../lib/client/output/scrollPlacement';
import type { OutputWindowState } from './useOutputWindow';
import type { VirtualLines } from './useVirtualLines';

/**
 * Puts the view where the window's pending scroll asks (PWA-2), once the lines it refers to are
 * rendered, and keeps the top line still while pages come and go above it (`anchorTop`).
 */
export function useScrollPlacement(
  output: OutputWindowState,
  list: VirtualLines,
  wrap: boolean,
  scrollBox: RefObject<HTMLDivElement | null>,
) {
  const { lines, version, jumping, pendingScroll } = output;
  const { virtualizer, firstIndex } = list;

  // `version` is a dependency of its own: a jump inside the window changes no line, only where to show them.
  useLayoutEffect(() => {
    const pending = pendingScroll.current;
    if (!pending || lines.length === 0 || jumping.current) return;
    pendingScroll.current = null;
    const index = lineIndexAt(lines, pending.offset);
    const box = scrollBox.current;
    if (wrap || !box) {
      virtualizer.scrollToIndex(index, { align: pending.align });
      return;
    }
    // Lines have one height without wrapping: place the line exactly.
    box.scrollTop = scrollTopFor(index, pending, box.clientHeight);
    // NOTE: the browser reports a programmatic scroll a frame later; tell the virtualizer now, so
    // it renders the lines at the new position in this frame instead of one blank frame.
    box.dispatchEvent(new Event('scroll'));
  }, [lines, version, virtualizer, wrap]);

  const anchorTop = useCallback(() => {
    const first = lines[firstIndex];
    if (!first || !scrollBox.current) return;
    pendingScroll.current = {
      offset: first.offset,
      align: 'start',
      delta: firstIndex * LINE_HEIGHT - scrollBox.current.scrollTop,
    };
  }, [lines, firstIndex]);

  return { anchorTop };
}
