import { describe, expect, it } from 'vitest';
import {
  clampToOutput,
  linesAsText,
  MAX_LINE_CHARS,
  OutputWindow,
  PAGE_BYTES,
  pageStart,
} from '../../../lib/client/output/outputWindow';

/** An output of numbered lines, "line 000001\n" … (12 bytes each), as bytes. */
function numberedOutput(lines: number): Uint8Array {
  return new TextEncoder().encode(
    Array.from({ length: lines }, (_, i) => `line ${String(i + 1).padStart(6, '0')}\n`).join(''),
  );
}

const page = (output: Uint8Array, range: { offset: number; length: number }) =>
  output.subarray(range.offset, range.offset + range.length);

describe('OutputWindow (PWA-2)', () => {
  const output = numberedOutput(100_000); // 1.2 MB: five pages
  const total = output.length;

  it('PWA-2 lines are cut at line ends across page boundaries, with exact byte offsets', () => {
    const window = new OutputWindow(total);
    const first = OutputWindow.pageAround(0, total);
    window.reset(first.offset, page(output, first));
    const next = window.nextRange()!;
    expect(next.offset).toBe(PAGE_BYTES);
    window.add(next.offset, page(output, next));
    const lines = window.lines(true);
    // Every line whole, in order, and its offset points at its first byte.
    expect(lines[0]).toMatchObject({ offset: 0, end: 12, text: 'line 000001', continues: false });
    for (const [i, line] of lines.entries()) {
      expect(line.text).toBe(`line ${String(i + 1).padStart(6, '0')}`);
      expect(new TextDecoder().decode(output.subarray(line.offset, line.offset + 11))).toBe(line.text);
    }
    // The window ends at its last newline: the line cut by the page end waits for the next page.
    const last = lines[lines.length - 1]!;
    expect(last.offset + 12).toBeLessThanOrEqual(2 * PAGE_BYTES);
    expect(last.offset + 24).toBeGreaterThan(2 * PAGE_BYTES);
  });

  it('PWA-2 a window that starts mid-output begins at its first whole line', () => {
    const window = new OutputWindow(total);
    const around = OutputWindow.pageAround(3 * PAGE_BYTES + 100, total);
    expect(around.offset).toBe(pageStart(3 * PAGE_BYTES + 100));
    window.reset(around.offset, page(output, around));
    const first = window.lines(true)[0]!;
    expect(first.offset % 12).toBe(0);
    expect(first.offset).toBeGreaterThanOrEqual(3 * PAGE_BYTES);
    expect(first.text).toBe(`line ${String(first.offset / 12 + 1).padStart(6, '0')}`);
  });

  it('PWA-2 scrolling past the edges keeps at most maxPages pages and says which side went', () => {
    const window = new OutputWindow(total, 2);
    const first = OutputWindow.pageAround(0, total);
    window.reset(first.offset, page(output, first));
    expect(window.add(PAGE_BYTES, page(output, window.nextRange()!))).toBe('none');
    expect(window.add(2 * PAGE_BYTES, page(output, window.nextRange()!))).toBe('dropped-start');
    expect(window.start).toBe(PAGE_BYTES);
    const previous = window.previousRange()!;
    expect(previous).toEqual({ offset: 0, length: PAGE_BYTES });
    expect(window.add(previous.offset, page(output, previous))).toBe('dropped-end');
    expect([window.start, window.end]).toEqual([0, 2 * PAGE_BYTES]);
    expect(window.add(4 * PAGE_BYTES, new Uint8Array(10))).toBe('ignored');
  });

  it('PWA-2 jump to end shows the last line, with or without a final newline', () => {
    const window = new OutputWindow(total);
    const end = OutputWindow.pageAround(total - 1, total);
    window.reset(end.offset, page(output, end));
    expect(window.atEnd).toBe(true);
    expect(window.lines(true).at(-1)!.text).toBe('line 100000');
    const noNewline = new TextEncoder().encode('a\nb\nlast without newline');
    const small = new OutputWindow(noNewline.length);
    small.reset(0, noNewline);
    expect(small.lines(true).map((l) => l.text)).toEqual(['a', 'b', 'last without newline']);
    // While the command runs, its unfinished last line shows too (UX-2: a progress bar lives there).
    expect(small.lines(false).map((l) => l.text)).toEqual(['a', 'b', 'last without newline']);
  });

  it('PWA-2 a running command extends its short last page instead of duplicating it', () => {
    const growing = numberedOutput(10);
    const window = new OutputWindow(60);
    window.reset(0, growing.subarray(0, 60));
    window.totalBytes = growing.length;
    expect(window.nextRange()).toEqual({ offset: 60, length: growing.length - 60 });
    window.add(60, growing.subarray(60));
    expect(window.lines(true).map((l) => l.text)).toEqual(
      Array.from({ length: 10 }, (_, i) => `line ${String(i + 1).padStart(6, '0')}`),
    );
  });

  it('PWA-2 a line longer than the limit is shown in pieces; a window inside one giant line still shows it', () => {
    const giant = new TextEncoder().encode('x'.repeat(MAX_LINE_CHARS * 2 + 5) + '\nnext\n');
    const window = new OutputWindow(giant.length);
    window.reset(0, giant);
    const lines = window.lines(true);
    expect(lines.map((l) => [l.text.length, l.continues])).toEqual([
      [MAX_LINE_CHARS, true],
      [MAX_LINE_CHARS, true],
      [5, false],
      [4, false],
    ]);
    expect(lines.slice(0, 3).every((l) => l.offset === 0)).toBe(true);
    const oneLine = new Uint8Array(3 * PAGE_BYTES).fill(0x79);
    const inside = new OutputWindow(oneLine.length);
    inside.reset(PAGE_BYTES, oneLine.subarray(PAGE_BYTES, 2 * PAGE_BYTES));
    const shown = inside.lines(true);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown[0]!.offset).toBe(PAGE_BYTES);
  });

  it('PWA-2 a jump inside the window needs no read; a jump target stays inside the output', () => {
    const window = new OutputWindow(total);
    expect(window.holds(0)).toBe(false);
    const second = OutputWindow.pageAround(PAGE_BYTES, total);
    window.reset(second.offset, page(output, second));
    expect(window.holds(PAGE_BYTES)).toBe(true);
    expect(window.holds(2 * PAGE_BYTES - 1)).toBe(true);
    expect(window.holds(2 * PAGE_BYTES)).toBe(false);
    expect(window.holds(PAGE_BYTES - 1)).toBe(false);
    expect(clampToOutput(-5, total)).toBe(0);
    expect(clampToOutput(total + 5, total)).toBe(total - 1);
    expect(clampToOutput(7, 0)).toBe(0);
  });

  it('PWA-2 copied lines are the text they came from, a long line whole again', () => {
    const text = 'x'.repeat(MAX_LINE_CHARS + 3) + '\nshort\n';
    const window = new OutputWindow(text.length);
    window.reset(0, new TextEncoder().encode(text));
    expect(linesAsText(window.lines(true))).toBe(text);
  });
});
