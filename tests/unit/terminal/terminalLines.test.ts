import { describe, expect, it } from 'vitest';
import { splitSourceLines } from '../../../lib/terminal/sourceLines';
import { renderTerminalLines, type TerminalLine } from '../../../lib/terminal/terminalLines';

const encoder = new TextEncoder();
const render = (text: string, unfinished = false) =>
  renderTerminalLines(splitSourceLines(encoder.encode(text), 0, unfinished)).lines;
const texts = (lines: readonly TerminalLine[]) => lines.map((line) => line.text);
/** The bytes of `text` in a line's range, decoded. */
const bytesOf = (text: string, line: TerminalLine) =>
  new TextDecoder().decode(encoder.encode(text).subarray(line.offset, line.end));

describe('terminal rendering of command output (UX-2)', () => {
  it('UX-2 a carriage return rewrites the row: a progress bar shows its last state', () => {
    const output = 'fetch  10%\rfetch  55%\rfetch 100%\ndone\n';
    const lines = render(output);
    expect(texts(lines)).toEqual(['fetch 100%', 'done']);
    // The row keeps every byte that wrote it: its range is the whole first stored line.
    expect(bytesOf(output, lines[0]!)).toBe('fetch  10%\rfetch  55%\rfetch 100%\n');
    expect(lines[1]).toMatchObject({ offset: output.indexOf('done'), end: output.length });
  });

  it('UX-2 a shorter rewrite leaves the rest of the row unless erase-line clears it', () => {
    expect(texts(render('long words\rshort\n'))).toEqual(['shortwords']);
    expect(texts(render('long words\r\u001b[Kshort\n'))).toEqual(['short']);
    expect(texts(render('long words\r\u001b[2Kshort\n'))).toEqual(['short']);
    expect(texts(render('abcdef\u001b[3D\u001b[1Kx\n'))).toEqual(['   xef']);
  });

  it('UX-2 cursor-up rewrites earlier rows (docker, multi-bar progress) and their ranges grow to the rewrite', () => {
    const output = 'layer a: 10%\nlayer b:  5%\n\u001b[2A\u001b[2Klayer a: done\n\u001b[2Klayer b: 80%\nnext\n';
    const lines = render(output);
    expect(texts(lines)).toEqual(['layer a: done', 'layer b: 80%', 'next']);
    expect(lines.map((l) => l.offset)).toEqual([0, 13, output.indexOf('next')]);
    // Row a was last written by the line that moved up; row b by the one after it.
    expect(lines[0]!.end).toBe(output.indexOf('\u001b[2Klayer b'));
    expect(lines[1]!.end).toBe(output.indexOf('next'));
  });

  it('UX-2 cursor up past the first row stops there; down, columns, next/previous line and save/restore move as a terminal does', () => {
    expect(texts(render('one\n\u001b[9Atwo\n'))).toEqual(['two']);
    expect(texts(render('a\u001b[2Bb\n'))).toEqual(['a', '', ' b']);
    expect(texts(render('12345\u001b[3Gx\u001b[2Cy\n'))).toEqual(['12x45y']);
    expect(texts(render('one\ntwo\u001b[1Fz\u001b[1Ey\n'))).toEqual(['zne', 'ywo']);
    expect(texts(render('\u001b7first\nsecond\u001b8F\n'))).toEqual(['First', 'second']);
    expect(texts(render('ab\u0008c\n'))).toEqual(['ac']);
  });

  it('UX-2 erase below the cursor empties the rows under it (a redrawn multi-line status)', () => {
    expect(texts(render('a\nb\nc\n\u001b[3A\u001b[Jx\n'))).toEqual(['x', '', '']);
  });

  it('UX-2 SGR styles in 16, 256 and true colour, bold, italic and underline; they carry to later rows', () => {
    const lines = render(
      '\u001b[1;31mred\u001b[0m \u001b[38;5;208morange\u001b[48;2;1;2;3m on rgb\n\u001b[3;4mslanted\u001b[38:2::10:20:30m rgb\u001b[m plain\n',
    );
    expect(lines[0]!.segments).toEqual([
      { text: 'red', style: { bold: true, fg: 'var(--ansi-red)' } },
      { text: ' ', style: {} },
      { text: 'orange', style: { fg: 'rgb(255,135,0)' } },
      { text: ' on rgb', style: { fg: 'rgb(255,135,0)', bg: 'rgb(1,2,3)' } },
    ]);
    expect(lines[1]!.segments).toEqual([
      { text: 'slanted', style: { fg: 'rgb(255,135,0)', bg: 'rgb(1,2,3)', italic: true, underline: true } },
      { text: ' rgb', style: { fg: 'rgb(10,20,30)', bg: 'rgb(1,2,3)', italic: true, underline: true } },
      { text: ' plain', style: {} },
    ]);
  });

  it('UX-2 SEC-3 OSC 8 hyperlinks with safe schemes become links; others stay text', () => {
    const lines = render(
      'see \u001b]8;;https://example.com/doc\u0007the docs\u001b]8;;\u0007 and \u001b]8;id=1;javascript:alert(1)\u001b\\this\u001b]8;;\u001b\\\n',
    );
    expect(lines[0]!.text).toBe('see the docs and this');
    expect(lines[0]!.segments).toEqual([
      { text: 'see ', style: {} },
      { text: 'the docs', style: {}, link: 'https://example.com/doc' },
      { text: ' and this', style: {} },
    ]);
  });

  it('UX-2 other sequences and controls never show as text', () => {
    expect(texts(render('a\u001b[?25lb\u001b]0;title\u0007c\u001b(Bd\u0007e\u001b[6n\u009b1mf\n'))).toEqual(['abcdef']);
  });

  it('UX-2 a long row is cut into pieces sharing its range; an empty line is a row', () => {
    const long = 'x'.repeat(20_000);
    const lines = render(`${long}\n\nend\n`);
    expect(lines.map((l) => [l.text.length, l.continues, l.offset])).toEqual([
      [8192, true, 0],
      [8192, true, 0],
      [20_000 - 16_384, false, 0],
      [0, false, 20_001],
      [3, false, 20_002],
    ]);
  });

  it('UX-2 a running command: a UTF-8 character and an escape sequence cut by the end wait for their rest', () => {
    const bytes = encoder.encode('done\nprogress \u001b[32m50% ✓');
    const cut = bytes.subarray(0, bytes.length - 1); // inside "✓"
    expect(texts(renderTerminalLines(splitSourceLines(cut, 0, true)).lines)).toEqual(['done', 'progress 50% ']);
    const inEscape = encoder.encode('done\nprogress \u001b[3');
    expect(texts(renderTerminalLines(splitSourceLines(inEscape, 0, true)).lines)).toEqual(['done', 'progress ']);
    const inLink = encoder.encode('a \u001b]8;;https://exam');
    expect(renderTerminalLines(splitSourceLines(inLink, 0, true)).lines[0]!.segments).toEqual([
      { text: 'a ', style: {} },
    ]);
  });

  it('UX-2 the style open at given offsets is reported, to carry into a rendering that starts there', () => {
    const source = splitSourceLines(encoder.encode('\u001b[31mred\nstill\u001b[0m\nplain\n'), 100, false);
    const { carriesAt } = renderTerminalLines(source, undefined, [104, 111]);
    expect(carriesAt).toEqual([
      { style: { fg: 'var(--ansi-red)' }, link: undefined },
      { style: {}, link: undefined },
    ]);
    const again = renderTerminalLines(source.slice(1), carriesAt[0]);
    expect(again.lines[0]!.segments).toEqual([{ text: 'still', style: { fg: 'var(--ansi-red)' } }]);
  });
});
