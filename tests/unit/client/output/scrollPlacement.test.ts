import { describe, expect, it } from 'vitest';
import {
  isAtBottom,
  LINE_HEIGHT,
  lineIndexAt,
  lineIndexAtScrollTop,
  scrollTopFor,
} from '../../../../lib/client/output/scrollPlacement';

const lines = [0, 10, 25, 25, 40].map((offset) => ({ offset, text: '', continues: false }));

describe('output scroll placement (PWA-2)', () => {
  it('PWA-2 an offset is shown on the last line starting at or before it, else the first line', () => {
    expect(lineIndexAt(lines, 0)).toBe(0);
    expect(lineIndexAt(lines, 9)).toBe(0);
    expect(lineIndexAt(lines, 10)).toBe(1);
    // A long line's pieces share an offset: the offset is shown on its last piece.
    expect(lineIndexAt(lines, 30)).toBe(3);
    expect(lineIndexAt(lines, Number.MAX_SAFE_INTEGER)).toBe(4);
    expect(lineIndexAt(lines.slice(1), 3)).toBe(0);
  });

  it('PWA-2 a line is placed at the top, the bottom, the middle, or where it was on screen', () => {
    const view = 10 * LINE_HEIGHT;
    expect(scrollTopFor(7, { offset: 0, align: 'start' }, view)).toBe(7 * LINE_HEIGHT);
    expect(scrollTopFor(7, { offset: 0, align: 'end' }, view)).toBe(8 * LINE_HEIGHT - view);
    expect(scrollTopFor(7, { offset: 0, align: 'center' }, view)).toBe(7 * LINE_HEIGHT - (view - LINE_HEIGHT) / 2);
    // The delta wins over the alignment: a page came or went above the line.
    expect(scrollTopFor(7, { offset: 0, align: 'start', delta: 13 }, view)).toBe(7 * LINE_HEIGHT - 13);
  });

  it('PWA-2 the line at the top of the view is clamped to the lines there are', () => {
    expect(lineIndexAtScrollTop(0, 5)).toBe(0);
    expect(lineIndexAtScrollTop(LINE_HEIGHT * 2 + 1, 5)).toBe(2);
    expect(lineIndexAtScrollTop(LINE_HEIGHT * 99, 5)).toBe(4);
    expect(lineIndexAtScrollTop(0, 0)).toBe(-1);
  });

  it('PWA-2 the bottom is reached within part of a line', () => {
    expect(isAtBottom({ scrollHeight: 1000, clientHeight: 200, scrollTop: 800 })).toBe(true);
    expect(isAtBottom({ scrollHeight: 1000, clientHeight: 200, scrollTop: 800 - LINE_HEIGHT + 1 })).toBe(true);
    expect(isAtBottom({ scrollHeight: 1000, clientHeight: 200, scrollTop: 800 - LINE_HEIGHT })).toBe(false);
  });
});
