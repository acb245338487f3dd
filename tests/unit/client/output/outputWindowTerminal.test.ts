import { describe, expect, it } from 'vitest';
import { storedTextOf } from '../../../../lib/client/output/storedText';
import { OutputWindow, PAGE_BYTES } from '../../../../lib/client/output/outputWindow';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * An output whose page boundaries fall inside an escape sequence, inside a UTF-8 character and
 * inside a progress bar's carriage-return updates, each at a chosen byte.
 */
function outputWithCuts(): { bytes: Uint8Array; text: string } {
  const filler = (n: number) => 'f'.repeat(n - 1) + '\n';
  const head = filler(PAGE_BYTES - 3); // "\u001b[3" + "1m" is cut at the first page boundary
  const first = '\u001b[31mred ✓ across\u001b[0m\n';
  const second = filler(2 * PAGE_BYTES - encoder.encode(head + first).length - 1); // "✓" (3 bytes) is cut after its first byte
  const third = '✓ mark\n';
  const third2 = 'get 10%\rget 50%\r' + 'x'.repeat(PAGE_BYTES) + '\rget 100%\n'; // the bar spans the third boundary
  const text = head + first + second + third + third2 + 'after\n';
  return { bytes: encoder.encode(text), text };
}

function windowOver(bytes: Uint8Array, pages: number[]): OutputWindow {
  const window = new OutputWindow(bytes.length, 8);
  for (const page of pages) window.add(page * PAGE_BYTES, bytes.subarray(page * PAGE_BYTES, (page + 1) * PAGE_BYTES));
  return window;
}

describe('the output window renders and maps bytes across page boundaries (UX-2, PWA-2)', () => {
  it('UX-2 an escape sequence, a UTF-8 character and a progress bar cut by page boundaries render whole, with exact byte ranges', () => {
    const { bytes, text } = outputWithCuts();
    expect(decoder.decode(bytes.subarray(PAGE_BYTES - 3, PAGE_BYTES))).toBe('\u001b[3');
    expect(bytes[2 * PAGE_BYTES - 1]).toBe(0xe2); // the first byte of "✓"
    const window = windowOver(bytes, [0, 1, 2, 3]);
    const lines = window.lines(true);
    const red = lines.find((l) => l.text === 'red ✓ across')!;
    expect(red.segments[0]).toEqual({ text: 'red ✓ across', style: { fg: 'var(--ansi-red)' } });
    expect(red.offset).toBe(text.indexOf('\u001b[31m'));
    expect(lines.some((l) => l.text === '✓ mark')).toBe(true);
    const bar = lines.find((l) => l.text.startsWith('get 100%'))!;
    // The row is longer than a line may be: its pieces share its range.
    const pieces = lines.filter((l) => l.offset === bar.offset);
    expect(pieces.map((l) => l.text).join('')).toBe('get 100%' + 'x'.repeat(PAGE_BYTES - 8));
    expect(pieces.every((l) => l.end === bar.end)).toBe(true);
    // Every row's range decodes to the stored bytes that made it, and the rows tile the window.
    expect(decoder.decode(bytes.subarray(bar.offset, bar.end))).toBe(
      'get 10%\rget 50%\r' + 'x'.repeat(PAGE_BYTES) + '\rget 100%\n',
    );
    const rows = lines.filter((l, i) => i === 0 || l.offset !== lines[i - 1]!.offset);
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.offset).toBe(rows[i - 1]!.end);
    expect(rows.at(-1)!.end).toBe(bytes.length);
  });

  it('UX-2 Copy of all lines or of a range gives the stored bytes, escapes and carriage returns included', () => {
    const { bytes } = outputWithCuts();
    const window = windowOver(bytes, [0, 1, 2, 3]);
    const lines = window.lines(true);
    const between = (from: number, to: number) => window.bytesBetween(from, to);
    expect(storedTextOf(between, lines, 0, lines.length - 1)).toBe(decoder.decode(bytes));
    const bar = lines.findIndex((l) => l.text.startsWith('get 100%'));
    expect(
      storedTextOf(
        between,
        lines,
        bar,
        lines.findIndex((l) => l.text === 'after'),
      ),
    ).toBe('get 10%\rget 50%\r' + 'x'.repeat(PAGE_BYTES) + '\rget 100%\nafter\n');
    // Bytes the window does not hold are not made up.
    expect(window.bytesBetween(0, bytes.length + 1)).toBeNull();
  });

  it('UX-2 a window that starts at a later page carries the style open there, learnt when the page before was held', () => {
    const text = '\u001b[32m' + 'green\n'.repeat(PAGE_BYTES / 3 + 10) + 'still green\u001b[0m\n';
    const bytes = encoder.encode(text);
    const page = (n: number) => bytes.subarray(n * PAGE_BYTES, (n + 1) * PAGE_BYTES);
    const fresh = windowOver(bytes, [1]);
    expect(fresh.lines(true)[0]!.segments[0]!.style).toEqual({});
    // Scrolling down a window of two pages: the first goes when the third comes.
    const scrolled = new OutputWindow(bytes.length, 2);
    scrolled.add(0, page(0));
    scrolled.add(PAGE_BYTES, page(1));
    scrolled.lines(true);
    expect(scrolled.add(2 * PAGE_BYTES, page(2))).toBe('dropped-start');
    expect(scrolled.start).toBe(PAGE_BYTES);
    expect(scrolled.lines(true)[0]!.segments[0]!.style).toEqual({ fg: 'var(--ansi-green)' });
    expect(scrolled.lines(true).at(-1)).toMatchObject({
      text: 'still green',
      segments: [{ text: 'still green', style: { fg: 'var(--ansi-green)' } }],
    });
  });
});
