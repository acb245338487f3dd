/**
 * Where the output viewer scrolls to show a byte offset (PWA-2). Lines are found by offset, not by
 * number, so a place survives pages coming and going; without wrapping every line has one height,
 * so a line can be placed to the pixel.
 */
import type { OutputLine } from './outputWindow';

export const LINE_HEIGHT = 20;

export type ScrollAlign = 'start' | 'end' | 'center';

/** A place to show once its lines are rendered; `delta` keeps a line where it was on screen. */
export interface ScrollRequest {
  offset: number;
  align: ScrollAlign;
  delta?: number;
}

/** The line holding `offset`: the last one starting at or before it, else the first. `lines` is not empty. */
export function lineIndexAt(lines: readonly Pick<OutputLine, 'offset'>[], offset: number): number {
  const index = lines.findIndex((line) => line.offset > offset) - 1;
  if (index >= 0) return index;
  return lines[0]!.offset > offset ? 0 : lines.length - 1;
}

/** The scrollTop that shows line `index` as `request` asks, in a view `viewHeight` tall. */
export function scrollTopFor(index: number, request: ScrollRequest, viewHeight: number): number {
  const top = index * LINE_HEIGHT;
  if (request.delta !== undefined) return top - request.delta;
  if (request.align === 'start') return top;
  if (request.align === 'end') return top + LINE_HEIGHT - viewHeight;
  return top - (viewHeight - LINE_HEIGHT) / 2;
}

/** The line at the top of a view scrolled to `scrollTop` (-1 without lines). */
export function lineIndexAtScrollTop(scrollTop: number, lineCount: number): number {
  return Math.min(lineCount - 1, Math.floor(scrollTop / LINE_HEIGHT));
}

/** Whether a view is scrolled to its bottom, give or take part of a line. */
export function isAtBottom(view: { scrollHeight: number; scrollTop: number; clientHeight: number }): boolean {
  return view.scrollHeight - view.scrollTop - view.clientHeight < LINE_HEIGHT;
}
