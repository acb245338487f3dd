import { describe, expect, it } from 'vitest';
import { applySgr, parseAnsiLine, parseAnsiLines } from '../../../lib/client/ansi';

describe('ANSI colours (PWA-2)', () => {
  it('PWA-2 SGR colours and attributes become styled segments', () => {
    const { segments } = parseAnsiLine('plain \u001b[1;31merror\u001b[0m done');
    expect(segments).toEqual([
      { text: 'plain ', style: {} },
      { text: 'error', style: { bold: true, fg: 'var(--ansi-red)' } },
      { text: ' done', style: {} },
    ]);
  });

  it('PWA-2 256-colour and true-colour forms, bright colours and resets', () => {
    expect(applySgr({}, [38, 5, 196]).fg).toBe('rgb(255,0,0)');
    expect(applySgr({}, [38, 5, 9]).fg).toBe('var(--ansi-bright-red)');
    expect(applySgr({}, [48, 2, 1, 2, 3]).bg).toBe('rgb(1,2,3)');
    expect(applySgr({}, [94]).fg).toBe('var(--ansi-bright-blue)');
    expect(applySgr({ fg: 'x', bold: true }, [39])).toEqual({ bold: true });
    expect(applySgr({ fg: 'x', bold: true }, [])).toEqual({});
    // An invalid extended colour is ignored, not rendered.
    expect(applySgr({}, [38, 2, 999, 0, 0]).fg).toBeUndefined();
  });

  it('PWA-2 other escape sequences and control characters never show as text', () => {
    const { segments } = parseAnsiLine('a\u001b[2K\u001b[1Gb\u001b]0;title\u0007c\u001b]8;;http://x\u001b\\d\re\u0007f');
    expect(segments.map((s) => s.text).join('')).toBe('abcdef');
  });

  it('PWA-2 the style carries over to the next line', () => {
    const first = parseAnsiLine('\u001b[32mgreen starts');
    const second = parseAnsiLine('still green\u001b[0m', first.style);
    expect(second.segments[0]).toEqual({ text: 'still green', style: { fg: 'var(--ansi-green)' } });
    expect(second.style).toEqual({});
  });

  it('PWA-2 a style left open at the end of a line carries into the next lines', () => {
    const lines = ['\u001b[31mred', 'still red\u001b[0m plain', 'plain'].map((text) => ({ text }));
    expect(parseAnsiLines(lines)).toEqual([
      [{ text: 'red', style: { fg: 'var(--ansi-red)' } }],
      [
        { text: 'still red', style: { fg: 'var(--ansi-red)' } },
        { text: ' plain', style: {} },
      ],
      [{ text: 'plain', style: {} }],
    ]);
  });
});
